/// Why a data source refused a read or a batch of changes. Nothing was changed when this is thrown by `apply`.
public enum DataSourceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The table name breaks the rules of ``TableName``.
    case invalidTableName(String)
    /// An id breaks the rules of ``ItemID``.
    case invalidID(table: String, id: String, reason: String)
    /// An upserted item is not acceptable (no string `id`, a number JSON cannot hold, …).
    case invalidItem(table: String, reason: String)
    /// The query's arguments are invalid.
    case invalidQuery(QueryError)
    /// An ``IndexDefinition`` given to a store is invalid (no fields, a bad field name, …).
    case invalidIndex(table: String, fields: [String], reason: String)

    /// A sentence saying what is wrong and what to do.
    public var description: String {
        switch self {
        case .invalidTableName(let name):
            return "The table name \"\(name)\" is invalid: use 1 to 255 letters, digits, _, - or . (not starting with . or -)."
        case .invalidID(let table, let id, let reason):
            return "The id \"\(id)\" in table \(table) is invalid: \(reason)."
        case .invalidItem(let table, let reason):
            return "An item for table \(table) is invalid: \(reason)."
        case .invalidQuery(let error):
            return error.description
        case .invalidIndex(let table, let fields, let reason):
            return "The index on \(table)(\(fields.joined(separator: ", "))) is invalid: \(reason)."
        }
    }
}
