import OfflineSyncCore
public import OfflineSyncStore
extension JournalDataSource {
    /// Runs `body` isolated from every other writer, then applies what it staged as one journal record, all or
    /// nothing, durable as ``JournalOptions/durability`` says (or deferred, when the transaction asks).
    /// - Throws: what `body` throws, with nothing applied; otherwise as ``apply(_:)``.
    public func transaction<T: Sendable>(isolation: isolated (any Actor)?,
                                         _ body: (inout StoreTransaction) async throws -> T) async throws -> T {
        try await runTransaction(isolation: isolation, body)
    }

    /// Holds the store, then waits until every batch accepted before is written and applied, so that the
    /// transaction's reads see them.
    package func beginTransaction() async throws {
        await waitForTables()
        if !turns.tryHold() { await withCheckedContinuation { turns.enqueueTransaction($0) } }
        while !pipeline.isDrained || batchBeingWritten { await waitUntilIdle() }
    }

    package func commitTransaction(_ transaction: StoreTransaction) async throws {
        defer { turns.release() }
        guard !transaction.changes.isEmpty else { return }
        try await apply(transaction.changes, sync: syncs(deferringDurability: transaction.defersDurability), holdsTurn: true)
    }

    package func endTransaction() {
        turns.release()
    }

    /// How many transactions and applies wait for the transaction holding the store.
    var writersWaiting: Int { turns.waitingCount }

    /// Suspends while a transaction holds the store (its reads must not see a change applied meanwhile).
    func waitWhileATransactionHolds() async {
        while turns.isHeld { await withCheckedContinuation { turns.enqueueApply($0) } }
    }
}
