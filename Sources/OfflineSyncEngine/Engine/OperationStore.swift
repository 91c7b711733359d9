import OfflineSyncCore
import OfflineSyncStore
/// The operation queue as rows of the `__operations` table of a data source: reads them, and builds the changes that
/// write them.
///
/// A row is `{id: "<19-digit op id>", opId, kind, table, itemId, itemKey, revision, item?, attempted?, sent?, base?}`:
/// `itemKey` is the lower-cased item id (ids match case-insensitively), `item` is stored only for a delete (its
/// snapshot; an insert or update sends the current local item), `attempted` (`true`, absent otherwise) and `sent`
/// (an array of objects, absent when empty) are ``TableOperation/attempted`` and ``TableOperation/sentContents``,
/// and `base` (an object, absent when nil) is ``TableOperation/base``.
/// It applies nothing itself: callers stage its ``StoreChange``s in the transaction of the item change they go with.
struct OperationStore: Sendable {
    let dataSource: any SyncContextDataSource

    /// Every operation of `table` (or of all tables), in queue order.
    func operations(table: String? = nil) async throws -> [TableOperation] {
        let filter = table.map { Field("table") == .string($0) }
        return try await read(Query(table: EngineTables.operations, filter: filter, orderBy: [.ascending("opId")]))
    }

    /// The operations of one item (case-insensitive id), in queue order; the last one is the latest.
    func operations(table: String, itemId: String) async throws -> [TableOperation] {
        let filter = Field("table") == .string(table) && Field("itemKey") == .string(ItemID.key(itemId))
        return try await read(Query(table: EngineTables.operations, filter: filter, orderBy: [.ascending("opId")]))
    }

    /// The operations with an id greater than `id` (at most `limit` when given), in queue order.
    func operations(after id: Int64, limit: Int? = nil) async throws -> [TableOperation] {
        try await read(Query(table: EngineTables.operations, filter: id > 0 ? Field("opId") > .int(id) : nil,
                             orderBy: [.ascending("opId")], top: limit))
    }

    /// The operation with `id`, or nil when it is no longer queued.
    func operation(id: Int64) async throws -> TableOperation? {
        let rowID = EngineTables.rowID(forOperation: id)
        guard let row = try await dataSource.read(table: EngineTables.operations, id: rowID) else { return nil }
        return try Self.operation(from: row)
    }

    /// Operation `id` as `transaction` sees it, with the changes it staged; nil when there is none.
    func operation(id: Int64, in transaction: StoreTransaction) async throws -> TableOperation? {
        let rowID = EngineTables.rowID(forOperation: id)
        guard let row = try await transaction.read(table: EngineTables.operations, id: rowID) else { return nil }
        return try Self.operation(from: row)
    }

    /// The lower-cased ids of the items of `table` that have a queued operation.
    func pendingItemKeys(table: String) async throws -> Set<String> {
        let query = Query(table: EngineTables.operations, filter: Field("table") == .string(table), select: ["itemKey"])
        return Set(try await dataSource.read(query).items.compactMap { $0["itemKey"]?.stringValue })
    }

    /// How many operations are queued for `table`.
    func count(table: String) async throws -> Int {
        let query = Query(table: EngineTables.operations, filter: Field("table") == .string(table), top: 0,
                          includeTotalCount: true)
        return try await dataSource.read(query).totalCount ?? 0
    }

    /// The greatest operation id ever handed out (stored counter or queued ops), 0 when none.
    func highestOperationId() async throws -> Int64 {
        let last = try await read(Query(table: EngineTables.operations, orderBy: [.descending("opId")], top: 1))
        let counter = try await dataSource.read(table: EngineTables.config, id: Self.counterRowID)?["value"]?.intValue
        return max(last.first?.id ?? 0, counter ?? 0)
    }

    /// The change that stores `operation` (new or rewritten).
    func saving(_ operation: TableOperation) -> StoreChange {
        .upsert(table: EngineTables.operations, items: [Self.row(for: operation)])
    }

    /// The change that records `id` as the greatest operation id handed out, so ids are never reused, also
    /// after the queue drains and the process restarts.
    func advancingCounter(to id: Int64) -> StoreChange {
        .upsert(table: EngineTables.config, items: [["id": .string(Self.counterRowID), "kind": "counter",
                                                      "value": .int(id)]])
    }

    /// The changes that remove `operation` and its error row.
    func removing(_ operationId: Int64) -> [StoreChange] {
        removing([operationId])
    }

    /// The changes that remove the operations and their error rows.
    func removing(_ operationIds: [Int64]) -> [StoreChange] {
        [.delete(table: EngineTables.operations, ids: operationIds.map(EngineTables.rowID(forOperation:))),
         OperationErrorStore.removing(operations: operationIds)]
    }

    private static let counterRowID = "operationCounter"

    private func read(_ query: Query) async throws -> [TableOperation] {
        try await dataSource.read(query).items.map(Self.operation(from:))
    }

    static func row(for operation: TableOperation) -> JSONObject {
        var row: JSONObject = [
            "id": .string(EngineTables.rowID(forOperation: operation.id)),
            "opId": .int(operation.id),
            "kind": .string(operation.kind.rawValue),
            "table": .string(operation.table),
            "itemId": .string(operation.itemId),
            "itemKey": .string(ItemID.key(operation.itemId)),
            "revision": .int(operation.revision),
        ]
        if operation.kind == .delete, let item = operation.item { row["item"] = .object(item) }
        addPushState(of: operation, to: &row)
        return row
    }

    static func operation(from row: JSONObject) throws -> TableOperation {
        let rowID = row["id"]?.stringValue ?? "?"
        guard let id = row["opId"]?.intValue, let kindName = row["kind"]?.stringValue,
              let kind = TableOperation.Kind(rawValue: kindName), let table = row["table"]?.stringValue,
              let itemId = row["itemId"]?.stringValue
        else {
            throw SyncError.corruptRecord(table: EngineTables.operations, id: rowID,
                                          reason: "opId, kind, table or itemId is missing or of the wrong type")
        }
        var operation = TableOperation(id: id, kind: kind, table: table, itemId: itemId, item: row["item"]?.objectValue,
                                       revision: row["revision"]?.intValue ?? 0)
        try readPushState(of: &operation, from: row, table: EngineTables.operations)
        return operation
    }

    /// Adds `attempted`, `sent` and `base` to a stored row of `operation` (of the queue or of an error).
    static func addPushState(of operation: TableOperation, to row: inout JSONObject) {
        if operation.attempted { row["attempted"] = true }
        if !operation.sentContents.isEmpty { row["sent"] = .array(operation.sentContents.map(JSONValue.object)) }
        if let base = operation.base { row["base"] = .object(base) }
    }

    /// Reads `attempted`, `sent` and `base` of a row of `table` into `operation`.
    static func readPushState(of operation: inout TableOperation, from row: JSONObject, table: String) throws {
        let sent = row["sent"].map { $0.arrayValue ?? [.null] } ?? []
        operation.sentContents = sent.compactMap(\.objectValue)
        guard operation.sentContents.count == sent.count else {
            throw SyncError.corruptRecord(table: table, id: row["id"]?.stringValue ?? "?", reason: "sent is not an array of objects")
        }
        operation.attempted = row["attempted"]?.boolValue == true
        switch row["base"] {
        case nil, .null?: operation.base = nil
        case .object(let base)?: operation.base = base
        case let other?:
            throw SyncError.corruptRecord(table: table, id: row["id"]?.stringValue ?? "?",
                                          reason: "base is \(other.jsonString()), not an object")
        }
    }
}
