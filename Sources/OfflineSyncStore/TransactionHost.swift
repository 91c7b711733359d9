import OfflineSyncCore
/// A store actor that runs ``SyncContextDataSource/transaction(isolation:_:)`` natively, keeping its turns with
/// ``TransactionTurns``: it supplies the three steps, ``runTransaction(isolation:_:)`` puts them in order.
package protocol TransactionHost: SyncContextDataSource, Actor {
    /// Waits until the transaction holds the store and everything applied before it is readable.
    func beginTransaction() async throws
    /// Applies the transaction's changes (all or nothing, durable as it asks; nothing at all when it staged none),
    /// then releases the store, on every path.
    func commitTransaction(_ transaction: StoreTransaction) async throws
    /// Releases the store without applying anything.
    func endTransaction()
}

extension TransactionHost {
    /// Begins, runs `body` where the caller runs, then commits what it staged, or releases the store when it throws.
    package func runTransaction<T: Sendable>(isolation: isolated (any Actor)?,
                                     _ body: (inout StoreTransaction) async throws -> T) async throws -> T {
        try await beginTransaction()
        var transaction = StoreTransaction(dataSource: self)
        let value: T
        do {
            value = try await body(&transaction)
        } catch {
            await endTransaction()
            throw error
        }
        try await commitTransaction(transaction)
        return value
    }
}
