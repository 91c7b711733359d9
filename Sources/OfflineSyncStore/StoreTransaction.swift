public import OfflineSyncCore
/// The reads and the staged changes of one ``SyncContextDataSource/transaction(isolation:_:)``.
///
/// Reads see the store as it stands while the transaction holds it: every change applied before the transaction
/// began, none applied by another writer since, and not the changes staged here (they are applied when the body
/// returns).
///
/// ```swift
/// try await store.transaction { transaction in
///     let counter = try await transaction.read(table: "Counters", id: "visits")
///     let visits = (counter?["count"]?.intValue ?? 0) + 1
///     transaction.stage([.upsert(table: "Counters", items: [["id": "visits", "count": .int(visits)]])])
/// }
/// ```
public struct StoreTransaction: Sendable {
    /// The store the transaction reads and writes.
    public let dataSource: any SyncContextDataSource
    /// The changes to apply when the body returns, in order, all or nothing.
    public private(set) var changes: [StoreChange] = []
    /// Whether the store may return before the changes are durable, as
    /// ``SyncContextDataSource/applyDeferringDurability(_:)`` does; false unless the body sets it.
    public var defersDurability = false

    /// Starts an empty transaction on `dataSource` (a store's own ``SyncContextDataSource/transaction(isolation:_:)``
    /// creates it once it holds the store).
    public init(dataSource: any SyncContextDataSource) {
        self.dataSource = dataSource
    }

    /// The item with `id` (matched case-insensitively) in `table`, or nil.
    public func read(table: String, id: String) async throws -> JSONObject? {
        try await dataSource.read(table: table, id: id)
    }

    /// The items of `query.table` matching the query.
    public func read(_ query: Query) async throws -> QueryResult {
        try await dataSource.read(query)
    }

    /// Adds `changes` to the ones applied when the body returns.
    public mutating func stage(_ changes: [StoreChange]) {
        self.changes += changes
    }
}
