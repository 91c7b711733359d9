public import OfflineSyncCore
import OfflineSyncStore
/// Local writes across tables, collected by ``SyncContext/write(_:)`` and applied with their queue entries in one
/// atomic step.
///
/// ```swift
/// try await context.write { batch in
///     let list = try batch.insert(["title": "Groceries"], into: "TodoList")
///     try batch.insert(["text": "milk", "listId": list["id"] ?? .null], into: "TodoItem")
/// }
/// ```
///
/// The methods check what they can without the store (table names, ids, values a store can hold) and throw
/// ``SyncError`` at once; what needs the store (an insert of an id that exists locally, an action a pending
/// operation does not allow) is found when the batch is applied, and then nothing of the batch is written.
public struct LocalWriteBatch: Sendable {
    /// One collected write.
    struct Write: Sendable {
        var action: TableOperation.Kind
        var table: String
        var item: JSONObject
        /// For an item a model encoded, how to complete it from the stored item (``ModelFields``); nil otherwise.
        var model: ModelFields?
    }

    /// The writes in call order.
    private(set) var writes: [Write] = []

    init() {}

    /// Inserts `item` into `table` (an upper-case UUID id is generated when `id` is missing or null); returns the
    /// item as it will be stored.
    @discardableResult
    public mutating func insert(_ item: JSONObject, into table: String) throws -> JSONObject {
        let item = try SyncContext.insertable(item, table: table)
        writes.append(Write(action: .insert, table: table, item: item, model: nil))
        return item
    }

    /// Replaces `item` in `table` (creating it when absent) and queues or collapses an update.
    public mutating func update(_ item: JSONObject, in table: String) throws {
        try append(.update, item, table: table, model: nil)
    }

    /// Deletes the item from `table` and queues or collapses a delete carrying `item` as its snapshot.
    public mutating func delete(_ item: JSONObject, from table: String) throws {
        try append(.delete, item, table: table, model: nil)
    }

    /// Inserts a model into `table`; returns it as it will be stored (with a generated id if it had none).
    /// - Throws: as ``insert(_:into:)``, and ``SyncError/modelCoding(type:table:reason:)``.
    @discardableResult
    public mutating func insert<Model: Codable & Sendable>(_ model: Model, into table: String) throws -> Model {
        let coding = ModelCoding(table: table)
        return try coding.model(Model.self, from: try insert(try coding.item(from: model), into: table))
    }

    /// Replaces a model in `table`; system properties its type lacks are taken from the local item.
    public mutating func update<Model: Codable & Sendable>(_ model: Model, in table: String) throws {
        let coding = ModelCoding(table: table)
        try append(.update, try coding.item(from: model), table: table, model: ModelFields(Model.self, coding: coding))
    }

    /// Deletes a model from `table`; its `version` (from the local item when its type lacks one) becomes If-Match.
    public mutating func delete<Model: Codable & Sendable>(_ model: Model, from table: String) throws {
        let coding = ModelCoding(table: table)
        try append(.delete, try coding.item(from: model), table: table, model: ModelFields(Model.self, coding: coding))
    }

    private mutating func append(_ action: TableOperation.Kind, _ item: JSONObject, table: String, model: ModelFields?) throws {
        try SyncContext.validateTable(table)
        _ = try SyncContext.itemID(of: item, table: table)
        if action == .update { try SyncContext.validateContent(item, table: table) }
        writes.append(Write(action: action, table: table, item: item, model: model))
    }
}

extension SyncContext {
    /// Runs `body`, then applies all its writes and their queue entries in one `apply`, or none of them.
    ///
    /// Inside one batch the collapse rules apply in call order, as for separate calls: an insert then an update
    /// of the same item queue one insert. An error thrown by `body` or a batch method, or found when the batch is
    /// applied, leaves the store and the queue exactly as before.
    /// - Returns: what `body` returns.
    @discardableResult
    public func write<T: Sendable>(_ body: (inout LocalWriteBatch) throws -> T) async throws -> T {
        var batch = LocalWriteBatch()
        let result = try body(&batch)
        let writes = batch.writes
        guard !writes.isEmpty else { return result }
        try await transaction { transaction in
            var staged = StagedLocalWrites()
            for write in writes {
                _ = try await stage(write.action, table: write.table, item: write.item,
                                    model: write.model, staged: &staged, in: &transaction)
            }
        }
        localWriteCommitted()
        return result
    }
}
