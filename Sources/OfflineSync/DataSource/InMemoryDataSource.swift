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

    /// Creates an empty store that keeps `indexes` up to date with every `apply`.
    ///
    /// The definitions must be valid (see ``IndexDefinition/validate()``); an invalid one is a programming error
    /// and stops the process with its description.
    public init(indexes: [IndexDefinition]) {
        do { try tables.defineIndexes(indexes) } catch { preconditionFailure(error.description) }
    }

    /// How ``read(_:)`` answers `query`: the index it walks, or a scan, and why.
    /// - Throws: ``DataSourceError`` for an invalid table name or query.
    public func explain(_ query: Query) async throws -> QueryPlan {
        try tables.explain(query)
    }

    /// The item with `id` (case-insensitive) in `table`, or nil.
    public func read(table: String, id: String) async throws -> JSONObject? {
        try StoreChange.validateTable(table)
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

    /// The names of the tables that hold at least one item.
    public func tableNames() async throws -> [String] {
        tables.tableNames
    }
}
