import OfflineSyncCore
import OfflineSyncStore
extension SyncContext {
    /// Runs `body` as one transaction of the store (``SyncContextDataSource/transaction(isolation:_:)``): it reads,
    /// decides and stages its changes with no other writer of the store in between, and they are applied together
    /// when it returns, or none of them when it throws.
    ///
    /// Every change the engine makes goes through here, so this is where what the context derives from the store
    /// (its ``StoreMirror``) follows it: the body reads the mirror as the last commit left it and stages what it
    /// asks it to remember; once the store has committed, the mirror takes in the committed changes and what the body
    /// staged (``StoreMirror/didCommit(_:writes:)``); when the body throws or the store refuses the changes, it drops
    /// what was staged and stays as it was. The context's transactions run one at a time, each with what follows its
    /// commit, so a body never sees a mirror behind the store.
    ///
    /// The one exception is the set of operations in flight, which the contexts on the store share: a body marks
    /// an operation in flight while it holds the store (``SharedStoreState/inFlight``), so that no other context's
    /// transaction sees the commit without the mark; when the body throws or the store refuses the changes, the
    /// operations it marked are taken out again, so none stays in flight that no send will finish. Once committed,
    /// the observers whose result the changes may alter are marked, this context's and those of the other contexts on
    /// the store; when the changes touch the queue, the statuses whose count did not follow them count it again.
    func transaction<T: Sendable>(_ body: (inout StoreTransaction) async throws -> T) async throws -> T {
        if !transactionTurns.tryHold() { await withCheckedContinuation { transactionTurns.enqueueTransaction($0) } }
        defer { transactionTurns.release() }
        var staged: [StoreChange] = []
        var markedInFlight: Set<Int64> = []
        var writes = 0
        do {
            let value = try await dataSource.transaction { transaction in
                if mirror.missed(writes: shared.writes) { mirror.forgetCaches() }
                let before = shared.inFlight
                mirror.beginTransaction()
                defer { markedInFlight = shared.inFlight.subtracting(before) }
                let value = try await body(&transaction)
                staged = transaction.changes
                if !staged.isEmpty { shared.writes += 1 }
                writes = shared.writes
                return value
            }
            mirror.didCommit(staged, writes: writes)
            if let count = mirror.operationIndex?.count { statusPublisher.update { $0.pendingOperations = count } }
            markObservers(changedBy: staged)
            if !staged.isEmpty {
                let queueChanged = staged.contains { $0.table == EngineTables.operations }
                for other in shared.contexts(besides: self) {
                    Task { [staged] in
                        await other.markObservers(changedBy: staged)
                        if queueChanged { await other.queueChanged() }
                    }
                }
                if queueChanged, mirror.operationIndex == nil { Task { await self.queueChanged() } }
            }
            return value
        } catch {
            mirror.didRollBack()
            if !markedInFlight.isEmpty {
                // In a transaction of its own, as every access to the shared set; a store that cannot run even an
                // empty one leaves them marked until the process ends: safe, writes then queue new operations.
                _ = try? await dataSource.transaction { [markedInFlight] _ in shared.inFlight.subtract(markedInFlight) }
            }
            throw error
        }
    }

    /// Marks the observers whose result `changes` (of this context or another on the store) may alter.
    func markObservers(changedBy changes: [StoreChange]) {
        guard !changes.isEmpty else { return }
        for (key, observer) in queryObservers {
            let mayAlter: Bool
            if let last = observer.last, !observer.isEvaluating {
                mayAlter = ObservationScope.mayAlter(observer.query, lastResult: last, shown: observer.shownKeys, by: changes)
            } else {
                // An evaluation is under way: whether its result saw these changes is unknown.
                mayAlter = changes.contains { $0.table == observer.query.table }
            }
            if mayAlter { markDirty(key) }
        }
    }
}
