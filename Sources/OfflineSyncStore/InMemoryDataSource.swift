public import OfflineSyncCore
/// A data source that keeps everything in memory: for tests, previews and caches. Nothing survives the process.
///
/// ```swift
/// let store = InMemoryDataSource()
/// try await store.apply([.upsert(table: "TodoItem", items: [["id": "1", "text": "milk"]])])
/// let open = try await store.read(Query(table: "TodoItem", filter: Field("complete") != true))
/// ```
public actor InMemoryDataSource: SyncContextDataSource, TransactionHost, ModelDecodingDataSource {
    private var tables = TableSet()
    private var turns = TransactionTurns()
    /// The reader of typed reads' decodes, reused from one to the next.
    private let modelReaders = PackedObjectReaders()

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
        tables.foldIndexes(of: query.table)
        return try tables.explain(query)
    }

    /// The item with `id` (case-insensitive) in `table`, or nil.
    public func read(table: String, id: String) async throws -> JSONObject? {
        try StoreChange.validateTable(table)
        return tables.item(table: table, id: id)
    }

    /// The items matching `query`, with the local query rules.
    public func read(_ query: Query) async throws -> QueryResult {
        tables.foldIndexes(of: query.table)
        return try tables.read(query)
    }

    /// ``read(table:id:)``, decoded as `Model` straight from the item's packed form.
    package func readModel<Model: Decodable & Sendable>(_ type: Model.Type, table: String, id: String) async throws -> Model? {
        try StoreChange.validateTable(table)
        return try tables.model(Model.self, table: table, id: id, reusing: modelReaders)
    }

    /// ``read(_:)``, each item decoded as `Model`.
    package func readModels<Model: Decodable & Sendable>(_ type: Model.Type, _ query: Query) async throws -> [Model] {
        tables.foldIndexes(of: query.table)
        return try tables.models(Model.self, query, reusing: modelReaders)
    }

    /// Validates the whole batch, then applies all of it; nothing changes when it throws.
    /// - Throws: ``DataSourceError``.
    public func apply(_ changes: [StoreChange]) async throws {
        while turns.isHeld { await withCheckedContinuation { turns.enqueueApply($0) } }
        try TableSet.validate(changes)
        tables.apply(changes)
    }

    /// Runs `body` isolated from every other writer, then applies what it staged, all or nothing.
    public func transaction<T: Sendable>(isolation: isolated (any Actor)?,
                                         _ body: (inout StoreTransaction) async throws -> T) async throws -> T {
        try await runTransaction(isolation: isolation, body)
    }

    package func beginTransaction() async {
        if !turns.tryHold() { await withCheckedContinuation { turns.enqueueTransaction($0) } }
    }

    package func commitTransaction(_ transaction: StoreTransaction) throws {
        defer { turns.release() }
        try TableSet.validate(transaction.changes)
        tables.apply(transaction.changes)
    }

    package func endTransaction() {
        turns.release()
    }

    /// How many transactions and applies wait for the transaction holding the store.
    var writersWaiting: Int { turns.waitingCount }

    /// The names of the tables that hold at least one item.
    public func tableNames() async throws -> [String] {
        tables.tableNames
    }
}
