public import OfflineSyncCore
/// Why a data source refused a read or a batch of changes. Nothing was changed when this is thrown by `apply`.
///
/// A struct with a ``Code``, as GRDB's `DatabaseError`, so that a new kind of refusal does not break a caller's
/// `switch`: match on ``code``.
public struct DataSourceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of refusal an error is.
    public typealias Code = NamedCode<DataSourceError>

    /// What kind of refusal this is.
    public let code: Code
    /// The table concerned, when there is one.
    public let table: String?
    /// The query's own error, for the code `invalidQuery`.
    public let queryError: QueryError?
    /// A sentence saying what is wrong and what to do.
    public let description: String

    private init(_ code: Code, table: String?, queryError: QueryError? = nil, _ description: String) {
        self.code = code
        self.table = table
        self.queryError = queryError
        self.description = description
    }

    /// The table name breaks the rules of ``TableName``.
    public static func invalidTableName(_ name: String) -> DataSourceError {
        DataSourceError(.invalidTableName, table: name,
                        "The table name \"\(name)\" is invalid: use 1 to 255 letters, digits, _, - or . (not starting with . or -).")
    }

    /// An id breaks the rules of ``ItemID``.
    public static func invalidID(table: String, id: String, reason: String) -> DataSourceError {
        DataSourceError(.invalidID, table: table, "The id \"\(id)\" in table \(table) is invalid: \(reason).")
    }

    /// An upserted item is not acceptable.
    public static func invalidItem(table: String, reason: String) -> DataSourceError {
        DataSourceError(.invalidItem, table: table, "An item for table \(table) is invalid: \(reason).")
    }

    /// The query's arguments are invalid.
    public static func invalidQuery(_ error: QueryError) -> DataSourceError {
        DataSourceError(.invalidQuery, table: nil, queryError: error, error.description)
    }

    /// An ``IndexDefinition`` given to a store is invalid.
    public static func invalidIndex(table: String, fields: [String], reason: String) -> DataSourceError {
        DataSourceError(.invalidIndex, table: table, "The index on \(table)(\(fields.joined(separator: ", "))) is invalid: \(reason).")
    }
}

extension DataSourceError {
    /// The store does not implement something the caller needs; `what` names it.
    public static func unsupported(_ what: String) -> DataSourceError {
        DataSourceError(.unsupported, table: nil, "This data source does not support \(what); implement it in the data source.")
    }
}

extension NamedCode where Domain == DataSourceError {
    /// The table name breaks the rules of ``TableName``.
    public static var invalidTableName: Self { Self(rawValue: "invalidTableName") }
    /// An id breaks the rules of ``ItemID``.
    public static var invalidID: Self { Self(rawValue: "invalidID") }
    /// An upserted item is not acceptable (no string `id`, a number JSON cannot hold, nesting too deep, …).
    public static var invalidItem: Self { Self(rawValue: "invalidItem") }
    /// The query's arguments are invalid (``DataSourceError/queryError`` says how).
    public static var invalidQuery: Self { Self(rawValue: "invalidQuery") }
    /// An ``IndexDefinition`` given to a store is invalid (no fields, a bad field name, …).
    public static var invalidIndex: Self { Self(rawValue: "invalidIndex") }
    /// The store does not implement an optional requirement of ``SyncContextDataSource`` the caller needs.
    public static var unsupported: Self { Self(rawValue: "unsupported") }
}
