public import OfflineSyncCore
import OfflineSyncStore
/// Why the sync engine refused a call: bad arguments, an operation the queue does not allow, or a resolution
/// that no longer applies. Nothing was changed when one of these is thrown.
///
/// A struct with a ``Code``, as GRDB's `DatabaseError`, so that a new kind of refusal does not break a caller's
/// `switch`: match on ``code``. Two errors are equal when their codes, subjects and descriptions are.
public struct SyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of refusal an error is.
    public typealias Code = NamedCode<SyncError>

    /// What kind of refusal this is.
    public let code: Code
    /// The table concerned, when there is one.
    public let table: String?
    /// The item concerned, when there is one.
    public let itemId: String?
    /// The queued operation concerned, for the codes of an error resolution.
    public let operationId: Int64?
    /// A sentence saying what is wrong and what to do.
    public let description: String

    init(_ code: Code, table: String?, itemId: String? = nil, operationId: Int64? = nil, _ description: String) {
        self.code = code
        self.table = table
        self.itemId = itemId
        self.operationId = operationId
        self.description = description
    }

    /// The table name starts with `__`, which is reserved for the engine's own tables.
    public static func reservedTable(_ name: String) -> SyncError {
        SyncError(.reservedTable, table: name,
                  "The table name \"\(name)\" starts with __, which is reserved for the sync engine; use another name.")
    }

    /// The table name breaks the rules of ``TableName``.
    public static func invalidTableName(_ name: String) -> SyncError {
        SyncError(.invalidTableName, table: name,
                  "The table name \"\(name)\" is invalid: use 1 to 255 letters, digits, _, - or . (not starting with . or -).")
    }

    /// The item has no `id` (update and delete need one).
    public static func missingID(table: String) -> SyncError {
        SyncError(.missingID, table: table,
                  "The item for table \(table) has no \"id\"; update and delete need the id of an existing item.")
    }

    /// The item's `id` is not a string, or breaks the rules of ``ItemID``.
    public static func invalidID(table: String, id: JSONValue, reason: String) -> SyncError {
        SyncError(.invalidID, table: table, itemId: id.stringValue,
                  "The id \(id.jsonString()) for table \(table) is invalid: \(reason). Use a string id of 1 to 255 characters without + ? ` \" / \\ or control characters.")
    }

    /// An insert of an id that already exists in the local table.
    public static func duplicateInsert(table: String, id: String) -> SyncError {
        SyncError(.duplicateInsert, table: table, itemId: id,
                  "An item with id \"\(id)\" already exists in table \(table); use update instead of insert.")
    }

    /// The pending operation for the item does not allow the new action.
    public static func operationNotAllowed(table: String, id: String, pending: TableOperation.Kind,
                                           requested: TableOperation.Kind) -> SyncError {
        SyncError(.operationNotAllowed, table: table, itemId: id,
                  "Cannot \(requested.rawValue) item \"\(id)\" in table \(table) while a pending \(pending.rawValue) is queued for it; push first, or resolve the pending operation.")
    }

    /// The item cannot be used (for example a typed model that does not encode to a JSON object).
    public static func invalidItem(table: String, reason: String) -> SyncError {
        SyncError(.invalidItem, table: table, "The item for table \(table) is invalid: \(reason).")
    }

    /// A query for another table was given to this table.
    public static func queryTableMismatch(table: String, queryTable: String) -> SyncError {
        SyncError(.queryTableMismatch, table: table,
                  "The query is for table \(queryTable), not \(table); build it with table.query().")
    }

    /// The pull's arguments are invalid; `reason` says which one.
    public static func invalidPullArguments(table: String, reason: String) -> SyncError {
        SyncError(.invalidPullArguments, table: table, "The pull of table \(table) has invalid arguments: \(reason).")
    }

    /// The query id is empty, longer than 255 characters or holds control characters.
    public static func invalidQueryId(_ queryId: String) -> SyncError {
        SyncError(.invalidQueryId, table: nil,
                  "The query id \"\(queryId)\" is invalid: use 1 to 255 characters without control characters.")
    }

    /// `PullSettings.pageSize` is below 1.
    public static func invalidPageSize(_ size: Int) -> SyncError {
        SyncError(.invalidPageSize, table: nil, "The pull page size \(size) is invalid; use 1 or more.")
    }

    /// A purge of a table with pending operations, without `force`.
    public static func purgeBlocked(table: String, pendingOperations: Int) -> SyncError {
        SyncError(.purgeBlocked, table: table,
                  "Table \(table) has \(pendingOperations) pending operation(s), so it cannot be purged; push first, or purge with force: true to discard them.")
    }

    /// A forced purge was given a query; it always purges the whole table.
    public static func forcePurgeWithQuery(table: String) -> SyncError {
        SyncError(.forcePurgeWithQuery, table: table,
                  "A forced purge of table \(table) always purges the whole table; call purge(nil, force: true) without a query.")
    }

    /// The operation is being pushed right now.
    public static func operationInFlight(operationId: Int64, table: String, itemId: String) -> SyncError {
        SyncError(.operationInFlight, table: table, itemId: itemId, operationId: operationId,
                  "Operation \(operationId) (table \(table), item \"\(itemId)\") is being pushed right now; wait for the push to finish.")
    }

    /// The error's operation is no longer queued (resolved already, pushed, collapsed away or re-queued).
    public static func operationNotFound(operationId: Int64, table: String, itemId: String) -> SyncError {
        SyncError(.operationNotFound, table: table, itemId: itemId, operationId: operationId,
                  "Operation \(operationId) (table \(table), item \"\(itemId)\") is no longer queued; it was resolved, pushed or replaced, so this error needs no action.")
    }

    /// The error's operation changed after the error was recorded (a later local write collapsed into it).
    public static func operationChanged(operationId: Int64, table: String, itemId: String) -> SyncError {
        SyncError(.operationChanged, table: table, itemId: itemId, operationId: operationId,
                  "Operation \(operationId) (table \(table), item \"\(itemId)\") changed after the error was recorded; push again and resolve the new error instead.")
    }

    /// A row of the engine's own tables could not be read back.
    public static func corruptRecord(table: String, id: String, reason: String) -> SyncError {
        SyncError(.corruptRecord, table: table, itemId: id,
                  "The row \"\(id)\" of the engine table \(table) cannot be read (\(reason)); the store was changed outside the sync engine. Purge with force: true to reset the table.")
    }

    /// A typed model could not be encoded or decoded.
    public static func modelCoding(type: String, table: String, reason: String) -> SyncError {
        SyncError(.modelCoding, table: table,
                  "A \(type) for table \(table) could not be converted to or from JSON: \(reason). Check that the model's Codable form is a JSON object with a string id.")
    }
}

extension NamedCode where Domain == SyncError {
    /// The table name starts with `__`, which is reserved for the engine's own tables.
    public static var reservedTable: Self { Self(rawValue: "reservedTable") }
    /// The table name breaks the rules of ``TableName``.
    public static var invalidTableName: Self { Self(rawValue: "invalidTableName") }
    /// The item has no `id`.
    public static var missingID: Self { Self(rawValue: "missingID") }
    /// The item's `id` is not a string, or breaks the rules of ``ItemID``.
    public static var invalidID: Self { Self(rawValue: "invalidID") }
    /// An insert of an id that already exists in the local table.
    public static var duplicateInsert: Self { Self(rawValue: "duplicateInsert") }
    /// The pending operation for the item does not allow the new action.
    public static var operationNotAllowed: Self { Self(rawValue: "operationNotAllowed") }
    /// The item cannot be used.
    public static var invalidItem: Self { Self(rawValue: "invalidItem") }
    /// A query for another table was given to this table.
    public static var queryTableMismatch: Self { Self(rawValue: "queryTableMismatch") }
    /// The pull's arguments are invalid.
    public static var invalidPullArguments: Self { Self(rawValue: "invalidPullArguments") }
    /// The query id is invalid.
    public static var invalidQueryId: Self { Self(rawValue: "invalidQueryId") }
    /// `PullSettings.pageSize` is below 1.
    public static var invalidPageSize: Self { Self(rawValue: "invalidPageSize") }
    /// A purge of a table with pending operations, without `force`.
    public static var purgeBlocked: Self { Self(rawValue: "purgeBlocked") }
    /// A forced purge was given a query.
    public static var forcePurgeWithQuery: Self { Self(rawValue: "forcePurgeWithQuery") }
    /// The operation is being pushed right now.
    public static var operationInFlight: Self { Self(rawValue: "operationInFlight") }
    /// The error's operation is no longer queued.
    public static var operationNotFound: Self { Self(rawValue: "operationNotFound") }
    /// The error's operation changed after the error was recorded.
    public static var operationChanged: Self { Self(rawValue: "operationChanged") }
    /// A row of the engine's own tables could not be read back.
    public static var corruptRecord: Self { Self(rawValue: "corruptRecord") }
    /// A typed model could not be encoded or decoded.
    public static var modelCoding: Self { Self(rawValue: "modelCoding") }
}
