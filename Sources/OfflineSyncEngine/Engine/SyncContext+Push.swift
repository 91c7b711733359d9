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

    /// Pushes only the pending operations of `tables`, as ``push()`` does, and first what they depend on in other
    /// tables (see ``TableRelation``): the queued inserts they refer to, the operations that may still refer to an
    /// item they delete, transitively. The other operations of other tables, and their errors, stay as they are.
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
    /// A ``PushMachine`` decides; this loop carries out its actions: it prepares operations (in a store transaction:
    /// read, decide, mark attempted durably), sends them (in the loop or in child tasks), and finishes each answer as
    /// it arrives (in a transaction again). Reading the queue again when nothing is left picks up operations queued
    /// during the push.
    func pushQueue(tables: Set<String>?, settings: PushSettings) async throws -> PushResult {
        if let tables, tables.isEmpty { return PushResult(pushed: 0) }
        let scope = tables.flatMap(Self.rows(of:))
        try await transaction { $0.stage([.deleteAll(table: EngineTables.errors, matching: scope)]) }
        // The whole queue in one read; later reads return only operations queued during the push.
        let firstRead = try await queue.operations(after: 0)
        // A scoped push sends too what its operations depend on in other tables, and keeps what it read for the
        // dependencies of the operations queued during the push.
        var dependencies = Set<Int64>()
        var scopedReads: [TableOperation] = []
        if let tables {
            dependencies = try await self.dependencies(of: firstRead, tables: tables)
            scopedReads = firstRead
        }
        var machine = PushMachine(firstRead: firstRead, tables: tables, dependencies: dependencies,
                                  limit: settings.maximumConcurrentRequests, startsWide: remoteIsSlow, relations: relations)
        let total = machine.total
        report(SyncProgress(activity: .push, phase: .started, completed: 0, total: total, pages: 0))
        var storeFailure: (any Error)?
        // Within a run's budget (``SyncBudget``) an operation is marked attempted only when its request may start,
        // and the budget is asked before each.
        let budgeted = SyncBudget.current != nil
        defer { mirror.markedAhead.removeAll() }
        await withTaskGroup(of: (Int64, SentOperation, PreparedOperation).self) { group in
            do {
                actions: while true {
                    switch machine.nextAction(cancelled: Task.isCancelled) {
                    case .prepare(let id, let markRun):
                        guard await SyncBudget.allowsRequest() else {
                            machine.stopForBudget()
                            continue actions
                        }
                        let run = budgeted ? 1 : markRun
                        machine.prepared(id, try await prepareToSend(id, markRun: run, schedule: &machine.schedule))
                    case .send(let id, let prepared, inline: true):
                        // One at a time: no child task to hand the request to and back from.
                        let started = ContinuousClock.now
                        let (sent, updated) = await SyncBudget.timing { await send(prepared) }
                        machine.answered(id, sent, as: updated, took: ContinuousClock.now - started)
                    case .send(let id, let prepared, inline: false):
                        group.addTask {
                            let (sent, updated) = await SyncBudget.timing { await self.send(prepared) }
                            return (id, sent, updated)
                        }
                    case .waitForAnswer:
                        guard let (id, sent, updated) = await group.next() else { break actions }
                        machine.answered(id, sent, as: updated)
                    case .finish(let prepared, let sent, let prepareNext):
                        let finished = try await finish(prepared, sent, schedule: &machine.schedule,
                                                        prepareNext: prepareNext && !budgeted)
                        if budgeted, case .pushed = finished.finished { await SyncBudget.current?.operationPushed() }
                        machine.finished(prepared.operation.id, finished.finished, next: finished.next)
                        report(SyncProgress(activity: .push, phase: .advanced, completed: machine.done,
                                            total: max(total, machine.done), pages: 0))
                    case .readQueue(let after):
                        let read = try await queue.operations(after: after)
                        var found: [TableOperation] = []
                        if let tables {
                            // What the operations queued meanwhile depend on, among every operation read so far.
                            scopedReads += read
                            let start = read.filter { tables.contains($0.table) }
                            if !start.isEmpty {
                                let ids = try await self.dependencies(of: scopedReads, tables: tables, startingFrom: start)
                                found = scopedReads.filter { ids.contains($0.id) }
                            }
                        }
                        machine.read(read, dependencies: found)
                    case .end:
                        break actions
                    }
                }
            } catch {
                // The store failed: stop, and forget the operations still in flight (they are marked attempted, so a
                // later push recognises whatever they did on the server).
                storeFailure = error
                group.cancelAll()
                while await group.next() != nil {}
                let abandoned = machine.unfinished
                // An empty transaction of a failed store still runs (it applies nothing); should it not, the
                // operations stay marked in flight until the process ends: safe, writes then queue new operations.
                try? await transaction { _ in shared.inFlight.subtract(abandoned) }
            }
        }
        if machine.foundRemoteSlow { remoteIsSlow = true }
        let done = machine.done
        func reportFailure() {
            report(SyncProgress(activity: .push, phase: .failed, completed: done, total: max(total, done), pages: 0))
        }
        if let storeFailure {
            reportFailure()
            throw storeFailure
        }
        switch machine.outcome {
        case .failed(let reason, let errors, let underlying):
            reportFailure()
            throw PushError(reason: reason, errors: errors, underlying: underlying)
        case .pushed(let pushed):
            report(SyncProgress(activity: .push, phase: .finished, completed: done, total: max(total, done), pages: 0))
            return PushResult(pushed: pushed)
        }
    }

    /// The filter of the engine rows (operations, errors) of `tables`; nil for no table.
    private static func rows(of tables: Set<String>) -> Filter? {
        let conditions = tables.sorted().map { Field("table") == .string($0) }
        guard var filter = conditions.first else { return nil }
        for condition in conditions.dropFirst() { filter = .or(filter, condition) }
        return filter
    }
}
