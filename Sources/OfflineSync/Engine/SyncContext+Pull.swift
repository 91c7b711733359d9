extension SyncContext {
    /// Pulls `query` (default: the whole table) from the remote into the local table.
    ///
    /// Steps: validate the arguments; when the table has pending operations, push first as
    /// ``PullSettings/pushFirst`` says (a failing push fails the pull with its ``PushError``); then page with ``PullPager`` until an empty page or the query's `top`.
    /// Soft-deleted records are removed locally; records whose item has a pending operation are left alone.
    /// With a `queryId` the pull is incremental: it asks for `updatedAt ge <token>`, and each page's items and
    /// its new delta token are written in one atomic `apply`. A token stored for another filter is not used: the
    /// pull starts from no token, and its `.started` progress report says so (``SyncProgress/tokenReset``).
    /// - Throws: ``SyncError`` for bad arguments, ``PushError`` when the push before it fails, ``RemoteError``,
    ///   `CancellationError` when the task is cancelled in any step, the push before it included (pages applied
    ///   before stay applied; errors of operations pushed before stay in ``operationErrors()``), or a data-source
    ///   error. (A cancelled ``push()`` throws ``PushError`` with reason `.cancelled` instead, since it carries the
    ///   errors of the operations it tried.)
    func pull(table: String, query: Query?, queryId: String?, settings: PullSettings) async throws {
        try Self.validateTable(table)
        let query = query ?? Query(table: table)
        try PullArguments.validate(table: table, query: query, queryId: queryId, settings: settings)
        try await recordingOutcome {
            try await holding(syncGate) {
                if settings.pushFirst != .nothing, try await queue.count(table: table) > 0 {
                    do {
                        _ = try await pushQueue(tables: settings.pushFirst == .tableOperations ? [table] : nil)
                    } catch let error as PushError where error.reason == .cancelled {
                        // A pull reports cancellation one way, whichever step it stopped in.
                        throw CancellationError()
                    }
                }
                try await pullPages(table: table, query: query, queryId: queryId, settings: settings)
            }
        }
    }

    private func pullPages(table: String, query: Query, queryId: String?, settings: PullSettings) async throws {
        let activity = SyncProgress.Activity.pull(table: table, queryId: queryId)
        var pager: PullPager
        var tokenReset = false
        if let queryId {
            let lookup = try await DeltaTokenStore.lookup(table: table, queryId: queryId, filter: query.filter, in: dataSource)
            pager = PullPager(token: lookup.token, pageSize: settings.pageSize)
            tokenReset = lookup.filterChanged
        } else {
            pager = PullPager(skip: query.skip, limit: query.top, pageSize: settings.pageSize)
        }
        var total = query.top
        report(SyncProgress(activity: activity, phase: .started, completed: 0, total: total, pages: 0, tokenReset: tokenReset))
        // The last delta token stored with a page whose apply did not wait for durability (see `applyPage`).
        var undurableToken: StoreChange?
        do {
            while let request = pager.nextRequest {
                try Task.checkCancellation()
                var remoteQuery = query
                remoteQuery.includeDeleted = true
                remoteQuery.skip = request.skip
                remoteQuery.top = request.top
                remoteQuery.includeTotalCount = settings.requestsTotalCount && pager.pagesReceived == 0
                if let token = request.token {
                    let bound = Field("updatedAt") >= .string(Timestamp.string(fromMilliseconds: token))
                    remoteQuery.filter = query.filter.map { $0 && bound } ?? bound
                    remoteQuery.orderBy = [.ascending("updatedAt")]
                }
                let page = try await remote.read(remoteQuery)
                try Task.checkCancellation()
                if let count = page.totalCount, total == nil {
                    total = query.top.map { min($0, count) } ?? count
                }
                let maxUpdatedAt = page.items.compactMap { $0["updatedAt"]?.stringValue.flatMap(Timestamp.milliseconds(from:)) }.max()
                let step = pager.pageReceived(count: page.items.count, maxUpdatedAt: maxUpdatedAt)
                if !page.items.isEmpty || step.newToken != nil {
                    let saved = try await applyPage(page.items, table: table,
                                                    token: step.newToken.map { ($0, queryId ?? "") }, filter: query.filter)
                    undurableToken = saved ?? undurableToken
                }
                report(SyncProgress(activity: activity, phase: .advanced, completed: pager.recordsReceived,
                                    total: total, pages: pager.pagesReceived))
            }
            // Storing the last token again, durably, makes every page before it durable: a pull that returned is on
            // disk.
            if let undurableToken { try await holding(writeGate) { try await apply([undurableToken]) } }
        } catch {
            report(SyncProgress(activity: activity, phase: .failed, completed: pager.recordsReceived, total: total,
                                pages: pager.pagesReceived))
            // A remote that noticed the cancellation may report it as a network failure.
            if Task.isCancelled, !(error is CancellationError) { throw CancellationError() }
            throw error
        }
        report(SyncProgress(activity: activity, phase: .finished, completed: pager.recordsReceived, total: total,
                            pages: pager.pagesReceived))
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
    private func applyPage(_ items: [JSONObject], table: String, token: (Int64, String)?, filter: Filter?) async throws -> StoreChange? {
        try await holding(writeGate) {
            try Task.checkCancellation()
            let pending = try await queue.pendingItemKeys(table: table)
            let saving = token.map { DeltaTokenStore.saving($0.0, table: table, queryId: $0.1, filter: filter) }
            var page = PulledPage(items, table: table, pending: pending, checkingItems: false)
            do {
                if let changes = page.changes(saving: saving) { try await apply(changes, deferringDurability: saving != nil) }
            } catch is DataSourceError {
                page = PulledPage(items, table: table, pending: pending, checkingItems: true)
                if let changes = page.changes(saving: saving) { try await apply(changes, deferringDurability: saving != nil) }
            }
            for (item, reason) in page.skipped { skip(item, table: table, reason: reason) }
            for item in items where !ownVersions.isEmpty {
                guard let id = item["id"]?.stringValue, pending.isEmpty || !pending.contains(ItemID.key(id)) else { continue }
                ownVersions.observe(SystemProperties.isDeleted(item) ? nil : SystemProperties.version(of: item), table: table, itemId: id)
            }
            return saving
        }
    }

    /// Reports a pulled record left out of the store; `reason` is a sentence.
    private func skip(_ item: JSONObject, table: String, reason: String) {
        let id = item["id"].map { $0.stringValue ?? $0.jsonString() }
        report(SyncDiagnostic(code: .skippedPulledRecord, table: table, itemId: id,
                              message: reason + " The pulled record was left out; the rest of its page was stored."))
    }
}
