import OfflineSyncCore
/// A secondary index over one table: items sorted by `fields` (then by id). Indexes only make reads faster;
/// a query answers the same items with or without them, in the same order wherever `orderBy` decides it.
///
/// ```swift
/// let store = InMemoryDataSource(indexes: [IndexDefinition(table: "TodoItem", fields: ["complete", "updatedAt"])])
/// ```
public struct IndexDefinition: Sendable, Hashable {
    /// The indexed table.
    public var table: String
    /// The indexed fields, one or more; a query may use any prefix of them.
    public var fields: [String]

    /// An index of `table` on `fields`, checked when a store opens with it.
    public init(table: String, fields: [String]) {
        self.table = table
        self.fields = fields
    }

    /// Checks the definition: a valid table name and one or more valid, distinct field names.
    /// - Throws: ``DataSourceError/invalidIndex(table:fields:reason:)`` or ``DataSourceError/invalidTableName(_:)``.
    public func validate() throws(DataSourceError) {
        try StoreChange.validateTable(table)
        guard !fields.isEmpty else {
            throw DataSourceError.invalidIndex(table: table, fields: fields, reason: "it names no fields")
        }
        for field in fields where !Field.isValidIdentifier(field) {
            throw DataSourceError.invalidIndex(table: table, fields: fields, reason: "\"\(field)\" is not a valid field name")
        }
        guard Set(fields).count == fields.count else {
            throw DataSourceError.invalidIndex(table: table, fields: fields, reason: "it names a field twice")
        }
    }
}
