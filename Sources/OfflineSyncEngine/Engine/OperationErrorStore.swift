import OfflineSyncCore
import OfflineSyncStore
/// Reads and writes operation errors in the `__errors` table: one row per failed operation, keyed by the
/// operation's row id, holding the whole ``TableOperationError`` (operation id and revision included), so that
/// errors can be resolved after a restart too.
enum OperationErrorStore {
    /// The change that records `error`.
    static func saving(_ error: TableOperationError) -> StoreChange {
        var row: JSONObject = [
            "id": .string(EngineTables.rowID(forOperation: error.operation.id)),
            "opId": .int(error.operation.id),
            "kind": .string(error.operation.kind.rawValue),
            "table": .string(error.operation.table),
            "itemId": .string(error.operation.itemId),
            "revision": .int(error.operation.revision),
            "message": .string(error.message),
        ]
        if let item = error.item { row["item"] = .object(item) }
        if let serverItem = error.serverItem { row["serverItem"] = .object(serverItem) }
        if let status = error.statusCode { row["statusCode"] = .int(Int64(status)) }
        OperationStore.addPushState(of: error.operation, to: &row)
        return .upsert(table: EngineTables.errors, items: [row])
    }

    /// The change that removes the error rows of these operations (missing rows are no error).
    static func removing(operations ids: [Int64]) -> StoreChange {
        .delete(table: EngineTables.errors, ids: ids.map(EngineTables.rowID(forOperation:)))
    }

    /// Every recorded error, in queue order.
    static func errors(in dataSource: any SyncContextDataSource) async throws -> [TableOperationError] {
        let rows = try await dataSource.read(Query(table: EngineTables.errors, orderBy: [.ascending("opId")])).items
        return try rows.map(error(from:))
    }

    static func error(from row: JSONObject) throws -> TableOperationError {
        guard let id = row["opId"]?.intValue, let kind = row["kind"]?.stringValue.flatMap(TableOperation.Kind.init),
              let table = row["table"]?.stringValue, let itemId = row["itemId"]?.stringValue
        else {
            throw SyncError.corruptRecord(table: EngineTables.errors, id: row["id"]?.stringValue ?? "?",
                                          reason: "opId, kind, table or itemId is missing or of the wrong type")
        }
        let item = row["item"]?.objectValue
        var operation = TableOperation(id: id, kind: kind, table: table, itemId: itemId, item: item,
                                       revision: row["revision"]?.intValue ?? 0)
        try OperationStore.readPushState(of: &operation, from: row, table: EngineTables.errors)
        return TableOperationError(operation: operation, item: item, serverItem: row["serverItem"]?.objectValue,
                                   statusCode: row["statusCode"]?.intValue.map { Int($0) },
                                   message: row["message"]?.stringValue ?? "")
    }
}
