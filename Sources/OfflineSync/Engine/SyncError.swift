/// Why the sync engine refused a call: bad arguments, an operation the queue does not allow, or a resolution
/// that no longer applies. Nothing was changed when one of these is thrown.
public enum SyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The table name starts with `__`, which is reserved for the engine's own tables.
    case reservedTable(String)
    /// The table name breaks the rules of ``TableName``.
    case invalidTableName(String)
    /// The item has no `id` (update and delete need one).
    case missingID(table: String)
    /// The item's `id` is not a string, or breaks the rules of ``ItemID``.
    case invalidID(table: String, id: JSONValue, reason: String)
    /// An insert of an id that already exists in the local table.
    case duplicateInsert(table: String, id: String)
    /// The pending operation for the item does not allow the new action.
    case operationNotAllowed(table: String, id: String, pending: TableOperation.Kind, requested: TableOperation.Kind)
    /// The item cannot be used (for example a typed model that does not encode to a JSON object).
    case invalidItem(table: String, reason: String)
    /// A query for another table was given to this table.
    case queryTableMismatch(table: String, queryTable: String)
    /// The pull's arguments are invalid; `reason` says which one.
    case invalidPullArguments(table: String, reason: String)
    /// The query id is empty, longer than 255 characters or holds control characters.
    case invalidQueryId(String)
    /// `PullSettings.pageSize` is below 1.
    case invalidPageSize(Int)
    /// A purge of a table with pending operations, without `force`.
    case purgeBlocked(table: String, pendingOperations: Int)
    /// A forced purge was given a query; it always purges the whole table.
    case forcePurgeWithQuery(table: String)
    /// The operation is being pushed right now.
    case operationInFlight(operationId: Int64, table: String, itemId: String)
    /// The error's operation is no longer queued (resolved already, pushed, collapsed away or re-queued).
    case operationNotFound(operationId: Int64, table: String, itemId: String)
    /// The error's operation changed after the error was recorded (a later local write collapsed into it).
    case operationChanged(operationId: Int64, table: String, itemId: String)
    /// A row of the engine's own tables could not be read back.
    case corruptRecord(table: String, id: String, reason: String)
    /// A typed model could not be encoded or decoded.
    case modelCoding(type: String, table: String, reason: String)

    /// A sentence saying what is wrong and what to do.
    public var description: String {
        switch self {
        case .reservedTable(let name):
            return "The table name \"\(name)\" starts with __, which is reserved for the sync engine; use another name."
        case .invalidTableName(let name):
            return "The table name \"\(name)\" is invalid: use 1 to 255 letters, digits, _, - or . (not starting with . or -)."
        case .missingID(let table):
            return "The item for table \(table) has no \"id\"; update and delete need the id of an existing item."
        case .invalidID(let table, let id, let reason):
            return "The id \(id.jsonString()) for table \(table) is invalid: \(reason). Use a string id of 1 to 255 characters without + ? ` \" / \\ or control characters."
        case .duplicateInsert(let table, let id):
            return "An item with id \"\(id)\" already exists in table \(table); use update instead of insert."
        case .operationNotAllowed(let table, let id, let pending, let requested):
            return "Cannot \(requested.rawValue) item \"\(id)\" in table \(table) while a pending \(pending.rawValue) is queued for it; push first, or resolve the pending operation."
        case .invalidItem(let table, let reason):
            return "The item for table \(table) is invalid: \(reason)."
        case .queryTableMismatch(let table, let queryTable):
            return "The query is for table \(queryTable), not \(table); build it with table.query()."
        case .invalidPullArguments(let table, let reason):
            return "The pull of table \(table) has invalid arguments: \(reason)."
        case .invalidQueryId(let queryId):
            return "The query id \"\(queryId)\" is invalid: use 1 to 255 characters without control characters."
        case .invalidPageSize(let size):
            return "The pull page size \(size) is invalid; use 1 or more."
        case .purgeBlocked(let table, let count):
            return "Table \(table) has \(count) pending operation(s), so it cannot be purged; push first, or purge with force: true to discard them."
        case .forcePurgeWithQuery(let table):
            return "A forced purge of table \(table) always purges the whole table; call purge(nil, force: true) without a query."
        case .operationInFlight(let opId, let table, let itemId):
            return "Operation \(opId) (table \(table), item \"\(itemId)\") is being pushed right now; wait for the push to finish."
        case .operationNotFound(let opId, let table, let itemId):
            return "Operation \(opId) (table \(table), item \"\(itemId)\") is no longer queued; it was resolved, pushed or replaced, so this error needs no action."
        case .operationChanged(let opId, let table, let itemId):
            return "Operation \(opId) (table \(table), item \"\(itemId)\") changed after the error was recorded; push again and resolve the new error instead."
        case .corruptRecord(let table, let id, let reason):
            return "The row \"\(id)\" of the engine table \(table) cannot be read (\(reason)); the store was changed outside the sync engine. Purge with force: true to reset the table."
        case .modelCoding(let type, let table, let reason):
            return "A \(type) for table \(table) could not be converted to or from JSON: \(reason). Check that the model's Codable form is a JSON object with a string id."
        }
    }
}
