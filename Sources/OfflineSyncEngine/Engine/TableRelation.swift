import OfflineSyncCore
import OfflineSyncStore
/// Which items refer to which: a push never sends a referring item before the item it refers to exists on the
/// server, and never sends the delete of a referred item before the operations of the items referring to it.
///
/// A push finds a reference two ways:
/// - **Declared:** the field of a relation of the item's table holds the id of an item of its referenced table (a
///   string), or several ids (an array of strings). An item referring so to an insert that failed in the push is not
///   sent: it gets an operation error saying which item it refers to.
/// - **Inferred from the field's name:** a top-level string field that no relation of its table declares, whose
///   name is, ignoring case, a table's name followed by `Id` or `_id` (`todoListId` or `TodoList_id` for
///   `TodoList`), holds the id of an item of that table. An inferred reference only orders the push: the referring
///   item waits for that insert and is sent whether it succeeded or failed.
///
/// No other field is read as a reference (a `color: "red"` never waits for a `Tag` `red`): declare a relation for
/// any other name (`listId`, `parent`), for an array of ids, and for a reference that must hold the referring item
/// back when the insert it refers to failed. A push of some tables (``SyncContext/push(tables:)``, a pull's
/// ``PullSettings/PushFirst/tableOperations``) also sends, first, the queued inserts of other tables that its inserts
/// and updates refer to, the operations of other tables that may still refer to an item it deletes, and in turn
/// what those depend on.
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
