public import OfflineSyncCore
public import OfflineSyncStore
/// A sync table over your own `Codable` model, so you work with structs instead of dictionaries.
///
/// The model's encoded form must be a JSON object with a string `id` (an optional `id` left `nil` gets a
/// generated UUID on insert). Dates travel as ISO 8601 strings with milliseconds. An update or delete completes what
/// the model encodes from the stored item: system properties the model does not declare (`version`, `updatedAt`, …)
/// are kept, so conflict detection keeps working (declare `var version: String?` to see them); top-level fields the
/// model does not declare (written by a newer app version, or another client) are kept, locally and on the server;
/// and a field the model declares but leaves `nil` is cleared, locally and on the server (it is sent as `null`).
/// Whether the model declares a field is asked of each write's own item, as the model encoded it: a model whose
/// `init(from:)` reads a key only for some items, and a stored row that no longer decodes as the model (written
/// before the model gained a required field), are completed right.
///
/// ```swift
/// struct TodoItem: Codable, Sendable {
///     var id: String?
///     var text: String
///     var complete = false
///     var dueAt: Date?
/// }
/// let todos = context.table(TodoItem.self, name: "TodoItem")
/// var milk = try await todos.insert(TodoItem(id: nil, text: "milk"))
/// milk.complete = true
/// try await todos.update(milk)
/// let open = try await todos.read(Field("complete") == false)
/// ```
public struct TypedSyncTable<Model: Codable & Sendable>: Sendable {
    /// The untyped table underneath.
    public let table: SyncTable
    /// Why the table's name is refused (``SyncContext/validateTable(_:)``), checked once; nil for a valid name.
    private let nameError: SyncError?

    /// Wraps an untyped table.
    public init(table: SyncTable) {
        self.table = table
        do { try SyncContext.validateTable(table.name) } catch { nameError = error; return }
        nameError = nil
    }

    /// The table's name.
    public var name: String { table.name }

    private var coding: ModelCoding { ModelCoding(table: table.name) }

    /// Inserts the model locally and queues an insert; returns it as stored (with a generated id if it had none).
    /// - Throws: ``SyncError`` as ``SyncTable/insert(_:)``, and ``SyncError/modelCoding(type:table:reason:)``.
    @discardableResult public func insert(_ model: Model) async throws -> Model {
        try coding.model(Model.self, from: try await table.insert(try coding.item(from: model)))
    }

    /// Writes the model's fields over the stored item and queues (or collapses into) an update; returns it as stored.
    /// Fields of the stored item that the model does not declare stay as they are; a declared field left `nil` is
    /// cleared.
    @discardableResult public func update(_ model: Model) async throws -> Model {
        let item = try coding.item(from: model)
        let stored = try await table.context.update(item, table: name, model: ModelFields(Model.self, coding: coding))
        return try coding.model(Model.self, from: stored)
    }

    /// Deletes the model locally and queues a delete (with the local `version` as `If-Match`).
    public func delete(_ model: Model) async throws {
        try await table.context.delete(try coding.item(from: model), table: name, model: ModelFields(Model.self, coding: coding))
    }

    /// The local model with `id`, or nil. A store that holds its items packed (``JournalDataSource``,
    /// ``InMemoryDataSource``) decodes the model straight from the packed item, building no dictionary on the way.
    public func read(id: String) async throws -> Model? {
        guard let store = table.context.modelDecodingSource else {
            return try await table.read(id: id).map { try coding.model(Model.self, from: $0) }
        }
        if let nameError { throw nameError }
        do {
            return try await store.readModel(Model.self, table: name, id: id)
        } catch let error as DecodingError {
            throw coding.failure(Model.self, error)
        }
    }

    /// The local models matching `query`.
    public func read(_ query: Query) async throws -> [Model] {
        guard let store = table.context.modelDecodingSource else {
            return try await table.read(query).items.map { try coding.model(Model.self, from: $0) }
        }
        if let nameError { throw nameError }
        guard query.table == name else { throw SyncError.queryTableMismatch(table: name, queryTable: query.table) }
        do {
            return try await store.readModels(Model.self, query)
        } catch let error as DecodingError {
            throw coding.failure(Model.self, error)
        }
    }

    /// The local models matching `filter` (all of them for nil), in `orderBy` order.
    public func read(_ filter: Filter? = nil, orderBy: [SortKey] = []) async throws -> [Model] {
        try await read(Query(table: table.name, filter: filter, orderBy: orderBy))
    }

    /// How the store would answer `query`; see ``SyncTable/explain(_:)``.
    public func explain(_ query: Query) async throws -> QueryPlan {
        try await table.explain(query)
    }

    /// The query's models now, then again after each committed change that alters them; see
    /// ``SyncTable/observe(_:)``. The stream throws ``SyncError/modelCoding(type:table:reason:)`` for an item that
    /// does not decode.
    public func observe(_ query: Query) -> AsyncThrowingStream<[Model], any Error> {
        let coding = coding
        return table.observe(query).mappingNewest { result in try result.items.map { try coding.model(Model.self, from: $0) } }
    }

    /// The context the table belongs to.
    public var context: SyncContext { table.context }

    /// A query of this table.
    public func query() -> Query { table.query() }

    /// Pulls from the server; see ``SyncTable/pull(_:queryId:settings:)``.
    public func pull(_ query: Query? = nil, queryId: String? = nil, settings: PullSettings = PullSettings()) async throws {
        try await table.pull(query, queryId: queryId, settings: settings)
    }

    /// Purges local items; see ``SyncTable/purge(_:force:)``.
    public func purge(_ query: Query? = nil, force: Bool = false) async throws {
        try await table.purge(query, force: force)
    }
}
