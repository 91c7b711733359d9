import OfflineSyncCore
import OfflineSyncStore
extension SyncContext {
    /// Runs `body` as one transaction of the store (``SyncContextDataSource/transaction(isolation:_:)``): it reads,
    /// decides and stages its changes with no other writer of the store in between, and they are applied together
    /// when it returns, or none of them when it throws.
    ///
    /// Every change the engine makes goes through here, so this is where what the context keeps in memory follows
    /// the store: before the changes are applied, ``MarkedAhead`` drops what they touch (then keeps the marks the
    /// transaction staged), and the operation index and the next operation id take in their `__operations` rows
    /// (``OperationIndex/follow(_:)``). When the body throws, its staged marks are dropped; when applying the changes
    /// fails, the caches are dropped and loaded again from the store on next use. The body's changes of
    /// ``OwnVersionHistory`` are made only once the changes are applied. Operations the body marked in flight
    /// (``SharedStoreState/inFlight``) are marked so only once the changes are applied: when the body throws or the
    /// store refuses the changes, they are taken out again, so no operation stays in flight that no send will finish.
    /// Once applied, the observers whose result the changes may alter are marked, this context's and those of the other
    /// contexts on the store.
    func transaction<T: Sendable>(_ body: (inout StoreTransaction) async throws -> T) async throws -> T {
        var staged: [StoreChange] = []
        var markedInFlight: Set<Int64> = []
        var ownVersionChanges: [OwnVersionHistory.Change] = []
        do {
            let value = try await dataSource.transaction { transaction in
                catchUpWithOtherContexts()
                let before = shared.inFlight
                ownVersions.beginStaging()
                defer {
                    markedInFlight = shared.inFlight.subtracting(before)
                    ownVersionChanges = ownVersions.takeStaged()
                }
                let value = try await body(&transaction)
                staged = transaction.changes
                if !staged.isEmpty { shared.writes += 1 }
                writesSeen = shared.writes
                follow(staged)
                return value
            }
            ownVersions.apply(ownVersionChanges)
            markObservers(changedBy: staged)
            if !staged.isEmpty {
                for other in shared.contexts(besides: self) {
                    Task { [staged] in await other.markObservers(changedBy: staged) }
                }
            }
            return value
        } catch {
            if !markedInFlight.isEmpty {
                // In a transaction of its own, as every access to the shared set; a store that cannot run even an
                // empty one leaves them marked until the process ends: safe, writes then queue new operations.
                _ = try? await dataSource.transaction { [markedInFlight] _ in shared.inFlight.subtract(markedInFlight) }
            }
            markedAhead.discardStaged()
            if !staged.isEmpty {
                // The store refused the changes the caches already follow: they load again from the store, and no
                // mark counts as stored.
                operationIndex = nil
                nextOperationId = nil
                markedAhead.removeAll()
            }
            throw error
        }
    }

    /// Drops what the context caches of the store when another context on it wrote since this one's last
    /// transaction (called inside a transaction, so no one writes meanwhile).
    private func catchUpWithOtherContexts() {
        guard let writesSeen, writesSeen != shared.writes else { return }
        operationIndex = nil
        nextOperationId = nil
        markedAhead.removeAll()
    }

    /// Makes what the context caches follow `changes`, which are about to be applied.
    private func follow(_ changes: [StoreChange]) {
        markedAhead.forget(touchedBy: changes)
        markedAhead.rememberStaged()
        guard !changes.isEmpty else { return }
        for change in changes where change.table == EngineTables.operations {
            // After a deleteAll the next id is loaded again (from the counter, when the change left it).
            if case .deleteAll = change { nextOperationId = nil }
            if let added = operationIndex?.follow(change) {
                if let next = nextOperationId, added >= next { nextOperationId = added + 1 }
                continue
            }
            // No index to tell the new operations: the next id is taken from the rows.
            operationIndex = nil
            if case .upsert(_, let rows) = change, let next = nextOperationId {
                nextOperationId = rows.reduce(next) { max($0, ($1["opId"]?.intValue ?? 0) + 1) }
            }
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
