import OfflineSyncCore
import OfflineSyncStore
/// Which items refer to which: a push never sends a referring item before the item it refers to exists on the
/// server, and never sends the delete of a referred item before the operations of the items referring to it.
///
/// A push already keeps every top-level string field in order that holds the id of an item with a queued insert;
/// declare a relation for a field that holds several ids (an array of strings).
///
/// ```swift
/// let context = SyncContext(dataSource: store, remote: remote, relations: [
///     TableRelation(table: "Task", field: "listId", referencedTable: "TodoList"),
///     TableRelation(table: "Task", field: "tagIds", referencedTable: "Tag"),
/// ])
/// ```
public struct TableRelation: Sendable, Hashable {
    /// The table whose items refer.
    public var table: String
    /// The field holding the referred item's id (a string), or several ids (an array of strings).
    public var field: String
    /// The table of the referred items.
    public var referencedTable: String

    /// Creates a relation: items of `table` hold in `field` ids of items of `referencedTable`.
    public init(table: String, field: String, referencedTable: String) {
        self.table = table
        self.field = field
        self.referencedTable = referencedTable
    }
}
