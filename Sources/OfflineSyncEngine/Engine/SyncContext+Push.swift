import OfflineSyncCore
import OfflineSyncStore
extension SyncContext {
    /// Pushes every pending operation, up to four at once (``PushSettings``). Throws PushError when any operation
    /// failed; failed operations stay queued unless resolved.
    ///
    /// - Each operation is one request: an insert without system properties, an update with `If-Match` from the
    ///   local item's `version`, a delete with the version of its snapshot.
    /// - Operations go in ascending id order across all tables, including those queued while the push runs, except
    ///   that an operation waits for the earlier operations of its item and for the items it refers to (see
    ///   ``TableRelation``).
    /// - On success the server's copy is stored locally, unless a newer operation exists for the item.
    /// - A per-operation failure is recorded in `__errors` and the push goes on. A network failure or a 401 stops
    ///   it: no new request leaves, and the answers of those in flight are recorded. Cancelling the calling task
    ///   cancels the requests in flight too; whatever answers arrived are recorded. Every unsent operation stays
    ///   queued.
    /// - The errors of the previous push are cleared when a push starts.
    /// - Throws: ``PushError``; a data-source error as thrown by the store.
    @discardableResult public func push() async throws -> PushResult {
        try await push(settings: PushSettings())
    }

    /// Pushes every pending operation as ``push()`` does, with `settings.maximumConcurrentRequests` in flight.
    @discardableResult public func push(settings: PushSettings) async throws -> PushResult {
        try await recordingOutcome { try await holding(syncGate) { try await pushQueue(tables: nil, settings: settings) } }
    }

    /// Pushes only the pending operations of `tables`, as ``push()`` does; the operations of other tables, and their
    /// errors, stay as they are.
    /// - Throws: ``SyncError`` for an invalid or reserved table name, before anything is sent; otherwise as
    ///   ``push()``.
    @discardableResult public func push(tables: Set<String>) async throws -> PushResult {
        try await push(tables: tables, settings: PushSettings())
    }

    /// Pushes only the pending operations of `tables`, as ``push(tables:)`` does, with
    /// `settings.maximumConcurrentRequests` in flight.
    @discardableResult public func push(tables: Set<String>, settings: PushSettings) async throws -> PushResult {
        for table in tables { try Self.validateTable(table) }
        return try await recordingOutcome {
            try await holding(syncGate) { try await pushQueue(tables: tables, settings: settings) }
        }
    }

    /// The push itself, of `tables` (nil: every table); call while holding the sync gate.
    ///
    /// One loop prepares (in a store transaction: read, decide, mark attempted durably), sends in child tasks, and
    /// finishes each answer as it arrives (in a transaction again), asking a ``PushSchedule`` which operation may
    /// go next. Reading the queue again when nothing is left picks up operations queued during the push.
    func pushQueue(tables: Set<String>?, settings: PushSettings) async throws -> PushResult {
        if let tables, tables.isEmpty { return PushResult(pushed: 0) }
        let scope = tables.flatMap(Self.rows(of:))
        try await transaction { $0.stage([.deleteAll(table: EngineTables.errors, matching: scope)]) }
        let inScope = { (operation: TableOperation) in tables?.contains(operation.table) ?? true }
        let limit = max(1, settings.maximumConcurrentRequests)
        // Requests go one at a time until `slowRequestsToWiden` in a row take longer than `slowRequest`: over a
        // network the push then keeps `limit` in flight, and so do the context's later pushes; against an in-process
        // back end, where several in flight buy nothing but thread switches, it stays one at a time (one request
        // that a busy machine delays does not widen it).
        var inFlightLimit = remoteIsSlow ? limit : 1
        var slowInARow = 0
        var schedule = PushSchedule(relations: relations)
        // The whole queue in one read; later reads return only operations queued during the push.
        let firstRead = try await queue.operations(after: 0)
        var lastRead = firstRead.last?.id ?? 0
        let firstBatch = firstRead.filter(inScope)
        schedule.add(firstBatch)
        let total = firstBatch.count
        var errors: [TableOperationError] = []
        var pushed = 0, done = 0
        var stop: (reason: PushError.Reason, underlying: RemoteError?)?
        var storeFailure: (any Error)?
        var inFlightOperations: [Int64: PreparedOperation] = [:]
        var sentInline: (Int64, SentOperation)?
        var preparedNext: (id: Int64, prepared: PreparedOperation)?
        report(SyncProgress(activity: .push, phase: .started, completed: 0, total: total, pages: 0))
        func fail(_ reason: PushError.Reason, _ underlying: RemoteError? = nil) -> PushError {
            report(SyncProgress(activity: .push, phase: .failed, completed: done, total: max(total, done), pages: 0))
            return PushError(reason: reason, errors: errors, underlying: underlying)
        }
        defer { mirror.markedAhead.removeAll() }
        await withTaskGroup(of: (Int64, SentOperation).self) { group in
            do {
                while true {
                    while stop == nil, schedule.inFlightCount < inFlightLimit {
                        let id: Int64, step: PreparedStep
                        if let next = preparedNext {
                            (id, step) = (next.id, .ready(next.prepared))
                            preparedNext = nil
                        } else {
                            guard let candidate = schedule.nextCandidate() else { break }
                            if Task.isCancelled {
                                stop = (.cancelled, nil)
                                break
                            }
                            id = candidate
                            step = try await prepareToSend(id, markRun: Self.attemptMarkRun(afterSending: done), schedule: &schedule)
                        }
                        switch step {
                        case .gone:
                            schedule.finished(id, .gone)
                        case .wait(let others):
                            schedule.park(id, until: others)
                        case .ready(let prepared):
                            schedule.started(id)
                            inFlightOperations[id] = prepared
                            if inFlightLimit == 1 {
                                // One at a time: no child task to hand the request to and back from.
                                let started = ContinuousClock.now
                                sentInline = (id, await send(prepared))
                                slowInARow = ContinuousClock.now - started > Self.slowRequest ? slowInARow + 1 : 0
                                if slowInARow >= Self.slowRequestsToWiden {
                                    inFlightLimit = limit
                                    remoteIsSlow = true
                                }
                            } else {
                                group.addTask { (id, await self.send(prepared)) }
                            }
                        }
                    }
                    if schedule.inFlightCount == 0 {
                        if stop != nil { break }
                        if schedule.releaseLowestParked() { continue }
                        if Task.isCancelled {
                            stop = (.cancelled, nil)
                            break
                        }
                        let read = try await queue.operations(after: lastRead)
                        guard let last = read.last?.id else { break }
                        lastRead = last
                        schedule.add(read.filter(inScope))
                        continue
                    }
                    let sent: (Int64, SentOperation)?
                    if let inline = sentInline {
                        sent = inline
                        sentInline = nil
                    } else {
                        sent = await group.next()
                    }
                    guard let (id, outcome) = sent else { break }
                    guard let prepared = inFlightOperations.removeValue(forKey: id) else { continue }
                    // One at a time, the next operation is prepared in the same transaction when it can be.
                    let finished = try await finish(prepared, outcome, schedule: &schedule,
                                                    prepareNext: inFlightLimit == 1 && stop == nil)
                    preparedNext = finished.next
                    switch finished.finished {
                    case .pushed:
                        pushed += 1
                    case .failed(let error):
                        errors.append(error)
                    case .aborted(let reason, let underlying):
                        if stop == nil { stop = (reason, underlying) }
                    }
                    done += 1
                    report(SyncProgress(activity: .push, phase: .advanced, completed: done, total: max(total, done), pages: 0))
                }
            } catch {
                // The store failed: stop, and forget the operations still in flight (they are marked attempted, so a
                // later push recognises whatever they did on the server).
                storeFailure = error
                group.cancelAll()
                var abandoned: [Int64] = []
                while let (id, _) = await group.next() { abandoned.append(id) }
                if let preparedNext { abandoned.append(preparedNext.id) }
                // An empty transaction of a failed store still runs (it applies nothing); should it not, the
                // operations stay marked in flight until the process ends: safe, writes then queue new operations.
                try? await transaction { _ in shared.inFlight.subtract(abandoned) }
            }
        }
        if let storeFailure {
            _ = fail(.operationErrors)
            throw storeFailure
        }
        if let stop { throw fail(stop.reason, stop.underlying) }
        if !errors.isEmpty { throw fail(.operationErrors) }
        report(SyncProgress(activity: .push, phase: .finished, completed: done, total: max(total, done), pages: 0))
        return PushResult(pushed: pushed)
    }

    /// How long a request must take before a push keeps several in flight: a network round trip, not a call into
    /// the same process.
    static let slowRequest = Duration.milliseconds(1)

    /// How many requests in a row must be slow (``slowRequest``) before a push keeps several in flight (and the
    /// context's later pushes start so, ``remoteIsSlow``).
    static let slowRequestsToWiden = 3

    /// The filter of the engine rows (operations, errors) of `tables`; nil for no table.
    private static func rows(of tables: Set<String>) -> Filter? {
        let conditions = tables.sorted().map { Field("table") == .string($0) }
        guard var filter = conditions.first else { return nil }
        for condition in conditions.dropFirst() { filter = .or(filter, condition) }
        return filter
    }
}
