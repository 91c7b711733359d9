/// A data source that keeps everything in memory: for tests, previews and caches. Nothing survives the process.
///
/// ```swift
/// let store = InMemoryDataSource()
/// try await store.apply([.upsert(table: "TodoItem", items: [["id": "1", "text": "milk"]])])
/// let open = try await store.read(Query(table: "TodoItem", filter: Field("complete") != true))
/// ```
public actor InMemoryDataSource: SyncContextDataSource {
    private var tables = TableSet()

    /// Creates an empty store.
    public init() {}

    /// The item with `id` (case-insensitive) in `table`, or nil.
    public func read(table: String, id: String) async throws -> JSONObject? {
        try TableSet.validateTable(table)
        return tables.item(table: table, id: id)
    }

    /// The items matching `query`, with the local query rules.
    public func read(_ query: Query) async throws -> QueryResult {
        try tables.read(query)
    }

    /// Validates the whole batch, then applies all of it; nothing changes when it throws.
    /// - Throws: ``DataSourceError``.
    public func apply(_ changes: [StoreChange]) async throws {
        try TableSet.validate(changes)
        tables.apply(changes)
    }
}
