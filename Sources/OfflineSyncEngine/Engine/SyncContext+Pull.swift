import OfflineSyncCore
import OfflineSyncStore
extension SyncContext {
    /// Pulls `query` (default: the whole table) from the remote into the local table.
    ///
    /// Steps: validate the arguments; when the table has pending operations, push first as
    /// ``PullSettings/pushFirst`` says (a failing push fails the pull with its ``PushError``); then page with
    /// ``PullPager`` (pages fetched ahead in ``PullWindow``s) until an empty page or the query's `top`.
    /// Soft-deleted records are removed locally; records whose item has a pending operation are left alone.
    /// With a `queryId` the pull is incremental: it pages by key (``PullKey``), asking for the records after the last
    /// one stored in the order of `updatedAt` then `id`, and each page's items and its new delta token (that key) are
    /// written in one atomic `apply`. A token stored for another filter is not used: the
    /// pull starts from no token, and its `.started` progress report says so (``SyncProgress/tokenReset``).
    /// - Throws: ``SyncError`` for bad arguments, ``PushError`` when the push before it fails, ``RemoteError``,
    ///   `CancellationError` when the task is cancelled in any step, the push before it included (pages applied
    ///   before stay applied; errors of operations pushed before stay in ``operationErrors()``), or a data-source
    ///   error. (A cancelled ``push()`` throws ``PushError`` with reason `.cancelled` instead, since it carries the
    ///   errors of the operations it tried.)
    func pull(table: String, query: Query?, queryId: String?, settings: PullSettings) async throws {
        try await pull([PullRequest(query ?? Query(table: table), queryId: queryId)], tables: [table], settings: settings)
    }

    /// Pulls every request as its table's `pull(_:queryId:settings:)` would, several at once: the push before them
    /// runs once (for the tables that have pending operations, as ``PullSettings/pushFirst`` says), then the requests
    /// fetch their pages together, at most ``PullSettings/maximumConcurrentRequests`` requests in flight in all.
    /// - Throws: as a table's pull; the first failing request's error, once every request ended.
    public func pull(_ requests: [PullRequest], settings: PullSettings = PullSettings()) async throws {
        try await pull(requests, tables: requests.map(\.query.table), settings: settings)
    }

    private func pull(_ requests: [PullRequest], tables: [String], settings: PullSettings) async throws {
        for (request, table) in zip(requests, tables) {
            try Self.validateTable(table)
            try PullArguments.validate(table: table, query: request.query, queryId: request.queryId, settings: settings)
        }
        try await recordingOutcome {
            try await holding(syncGate) {
                try await pushBeforePull(tables: Set(tables), settings: settings)
                let permits = RequestPermits(max(1, settings.maximumConcurrentRequests))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // The queries of one table go one after another: pages of two queries read at different times
                    // could otherwise store an older copy of a row over a newer one.
                    for sameTable in Dictionary(grouping: requests, by: \.query.table).values {
                        group.addTask {
                            if let table = sameTable.first?.query.table {
                                try await self.refetchDiscardedItems(table: table, permits: permits)
                            }
                            for request in sameTable { try await self.pullPages(request, settings: settings, permits: permits) }
                        }
                    }
                    try await group.waitForAll()
                }
                if !attachmentQueues.isEmpty { await attachmentsPulled(tables: Set(tables)) }
            }
        }
    }

    /// The push a pull of `tables` runs first, when one of them has pending operations; call holding the sync gate.
    private func pushBeforePull(tables: Set<String>, settings: PullSettings) async throws {
        guard settings.pushFirst != .nothing else { return }
        var pending = false
        for table in tables where !pending { pending = try await queue.count(table: table) > 0 }
        guard pending else { return }
        do {
            let pushSettings = PushSettings(maximumConcurrentRequests: settings.maximumConcurrentRequests)
            _ = try await pushQueue(tables: settings.pushFirst == .tableOperations ? tables : nil, settings: pushSettings)
        } catch let error as PushError where error.reason == .cancelled {
            // A pull reports cancellation one way, whichever step it stopped in.
            throw CancellationError()
        }
    }

    private func pullPages(_ request: PullRequest, settings: PullSettings, permits: RequestPermits) async throws {
        let query = request.query, table = query.table, queryId = request.queryId
        var run: PullRun
        if let queryId {
            let lookup = try await DeltaTokenStore.lookup(table: table, queryId: queryId, filter: query.filter, in: dataSource)
            let lookBack = PullLookBack(token: lookup.key, lookBack: settings.lookBack)
            run = PullRun(query: query, queryId: queryId, settings: settings,
                          pager: PullPager(key: lookBack?.start ?? lookup.key, pageSize: settings.pageSize),
                          tokenReset: lookup.filterChanged)
            run.lookBack = lookBack
        } else {
            run = PullRun(query: query, queryId: nil, settings: settings,
                          pager: PullPager(skip: query.skip, limit: query.top, pageSize: settings.pageSize,
                                           byId: query.orderBy.isEmpty), tokenReset: false)
        }
        if let largestPageAllowed { run.limitPageSize(to: largestPageAllowed) }
        report(run.progress(.started))
        do {
            while let base = run.pager.nextRequest {
                try Task.checkCancellation()
                let window = PullWindow(base: base, pageSize: run.knownPageSize, remaining: run.pager.remainingRecords,
                                        maximumConcurrentRequests: settings.maximumConcurrentRequests)
                do {
                    try await pullWindow(window, run: &run, permits: permits)
                } catch let error as RemoteError {
                    // A page size the server refuses: ask again with the size it allows, and remember it.
                    guard let allowed = PageSizeRefusal.allowedPageSize(after: error, asked: base.top) else { throw error }
                    largestPageAllowed = min(largestPageAllowed ?? allowed, allowed)
                    run.limitPageSize(to: allowed)
                }
            }
            // Storing the last token again, durably, makes every page before it durable: a pull that returned is on
            // disk.
            if let token = run.undurableToken { try await transaction { $0.stage([token]) } }
        } catch {
            // Stopped by a run's budget or a background task's expiration, the pages stored so far stay: their last
            // token is made durable, since the process may be suspended or killed next.
            if let token = run.undurableToken, error is SyncBudget.Exhausted || Task.isCancelled {
                try? await transaction { $0.stage([token]) }
            }
            report(run.progress(.failed))
            // A remote that noticed the cancellation may report it as a network failure.
            if Task.isCancelled, !(error is CancellationError) { throw CancellationError() }
            throw error
        }
        report(run.progress(.finished))
    }

    /// Fetches the window's pages, several at once, and stores them in order, as its ``PullWindowMachine`` says: until
    /// a page is short, does not continue the page before it (rows changed on the server), or the window holds no
    /// more pages.
    private func pullWindow(_ window: PullWindow, run: inout PullRun, permits: RequestPermits) async throws {
        var machine = PullWindowMachine(window: window, limit: run.settings.maximumConcurrentRequests,
                                        rebases: run.pager.pagesByKey || run.pager.byId)
        let remote = remote
        try await withThrowingTaskGroup(of: (Int, Result<RemotePage, any Error>).self) { group in
            var received: [Int: Result<RemotePage, any Error>] = [:]
            defer { group.cancelAll() }
            while true {
                switch machine.nextAction() {
                case .request(let index):
                    guard let request = machine.window.request(index) else { return }
                    guard await SyncBudget.allowsRequest() else {
                        // Stored as a failed page: the pages before it are stored, then the pull stops.
                        received[index] = .failure(SyncBudget.Exhausted())
                        machine.answered(index, items: nil)
                        continue
                    }
                    let remoteQuery = run.remoteQuery(for: request)
                    await permits.acquire()
                    if Task.isCancelled {
                        await permits.release()
                        throw CancellationError()
                    }
                    group.addTask {
                        let result: Result<RemotePage, any Error>
                        do {
                            result = .success(try await SyncBudget.timing { try await remote.read(remoteQuery) })
                        } catch {
                            result = .failure(error)
                        }
                        await permits.release()
                        return (index, result)
                    }
                case .waitForAnswer:
                    guard let (index, result) = try await group.next() else { return }
                    received[index] = result
                    machine.answered(index, items: try? result.get().items)
                case .store(let index, let overlaps):
                    guard let result = received.removeValue(forKey: index) else { return }
                    let page = try result.get()
                    try Task.checkCancellation()
                    let step = try await store(overlaps ? Array(page.items.dropFirst()) : page.items, of: page, run: &run)
                    let full = machine.pageStored(index, items: page.items)
                    run.learnPageSize(from: page, full: full)
                    machine.continueAfterPage(full: full, endsWindow: step.endsWindow, pullHasMore: run.pager.nextRequest != nil)
                case .end:
                    return
                }
            }
        }
    }

    /// Stores `items`, the records of a fetched page (without its first record when it overlaps the page before),
    /// and reports progress; returns what the page changed in the pager.
    private func store(_ items: [JSONObject], of page: RemotePage, run: inout PullRun) async throws -> PullPager.PageStep {
        if let count = page.totalCount, run.total == nil {
            run.total = run.query.top.map { min($0, count) } ?? count
        }
        let last = run.pager.incremental ? items.last.flatMap(PullKey.init(of:)) : nil
        let step = run.pager.pageReceived(count: items.count, last: last, lastId: run.pager.byId ? items.last?["id"]?.stringValue : nil)
        // Inside the look-back stretch the token stays where it is stored, and records held already are not stored again.
        let readAgain = run.lookBack != nil
        if let lookBack = run.lookBack, items.contains(where: { PullKey(of: $0).map(lookBack.isPast) ?? false }) {
            run.lookBack = nil
        }
        let newKey = run.lookBack == nil ? step.newKey : nil
        if !items.isEmpty || newKey != nil {
            let saved = try await applyPage(items, table: run.query.table, token: newKey.map { ($0, run.queryId ?? "") },
                                            filter: run.query.filter, skippingHeld: readAgain)
            run.undurableToken = saved ?? run.undurableToken
        }
        if !items.isEmpty { await SyncBudget.current?.recordsPulled(items.count) }
        report(run.progress(.advanced))
        return step
    }

    /// Stores one page in one `apply`: upserts, soft-delete removals and the new delta token. Records whose item
    /// has a pending operation (read now, so operations queued during the request count) are skipped.
    ///
    /// Each record is validated once: by the store's `apply`, which checks the whole batch first. Only when the
    /// store refuses the page (a ``DataSourceError``, nothing stored) is every record checked here with the store's
    /// rules, so that the ones it cannot hold are left out, reported as diagnostics, and the rest stored.
    ///
    /// A page that moves the delta token is applied without waiting for durability
    /// (``SyncContextDataSource/applyDeferringDurability(_:)``): a crash keeps a prefix of the applies, so it loses
    /// such a page only together with its token and every later page, and the next pull, from the token kept, fetches
    /// them again. Returns the token's row in that case, for the pull to store durably once it ends.
    ///
    /// With `skippingHeld` (a page read again behind the token), records the store holds in the same `version`, and
    /// deletions of items it does not hold, are left out silently.
    private func applyPage(_ items: [JSONObject], table: String, token: (PullKey, String)?, filter: Filter?,
                           skippingHeld: Bool) async throws -> StoreChange? {
        let saving = token.map { DeltaTokenStore.saving($0.0, table: table, queryId: $0.1, filter: filter) }
        let skipped: [(JSONObject, String)]
        do {
            skipped = try await storePage(items, table: table, saving: saving, checkingItems: false, skippingHeld: skippingHeld)
        } catch is DataSourceError {
            skipped = try await storePage(items, table: table, saving: saving, checkingItems: true, skippingHeld: skippingHeld)
        }
        for (item, reason) in skipped { skip(item, table: table, reason: reason) }
        return saving
    }

    /// Stores a page (and `saving`, its token) in one transaction; returns the records left out.
    private func storePage(_ items: [JSONObject], table: String, saving: StoreChange?, checkingItems: Bool,
                           skippingHeld: Bool) async throws -> [(JSONObject, String)] {
        try await transaction { transaction in
            try Task.checkCancellation()
            var items = items
            if skippingHeld { items = try await Self.notHeld(items, table: table, in: transaction) }
            let pending = try await queue.pendingItemKeys(table: table)
            let page = PulledPage(items, table: table, pending: pending, checkingItems: checkingItems)
            if let changes = page.changes(saving: saving) {
                transaction.stage(changes)
                transaction.defersDurability = saving != nil
            }
            for item in items where !mirror.ownVersions.isEmpty {
                guard let id = item["id"]?.stringValue, pending.isEmpty || !pending.contains(ItemID.key(id)) else { continue }
                mirror.ownVersions.observe(SystemProperties.isDeleted(item) ? nil : SystemProperties.version(of: item), table: table, itemId: id)
            }
            return page.skipped.map { ($0.0, $0.1) }
        }
    }

    /// The records of `items` that would change the store: not held in the same `version`, and for soft-deleted
    /// ones, held at all.
    private static func notHeld(_ items: [JSONObject], table: String, in transaction: StoreTransaction) async throws -> [JSONObject] {
        var changing: [JSONObject] = []
        for item in items {
            guard let id = item["id"]?.stringValue, ItemID.violation(in: id) == nil else {
                changing.append(item)  // left out with its reason by the page
                continue
            }
            guard let held = try await transaction.read(table: table, id: id) else {
                if !SystemProperties.isDeleted(item) { changing.append(item) }
                continue
            }
            if SystemProperties.isDeleted(item) || SystemProperties.version(of: held) == nil
                || SystemProperties.version(of: held) != SystemProperties.version(of: item) {
                changing.append(item)
            }
        }
        return changing
    }

    /// Reports a pulled record left out of the store; `reason` is a sentence.
    private func skip(_ item: JSONObject, table: String, reason: String) {
        let id = item["id"].map { $0.stringValue ?? $0.jsonString() }
        report(SyncDiagnostic(code: .skippedPulledRecord, table: table, itemId: id,
                              message: reason + " The pulled record was left out; the rest of its page was stored."))
    }
}
