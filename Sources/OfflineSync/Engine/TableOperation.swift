/// One pending change of the operation queue (`__operations`), waiting to be pushed.
///
/// Operations are pushed in ascending ``id`` order across all tables. Later local writes to the same item are
/// collapsed into the pending operation (model-system.md §4), which keeps its id and so its position.
public struct TableOperation: Sendable, Hashable {
    /// What the operation does on the server.
    public enum Kind: String, Sendable {
        /// `POST`: create the item.
        case insert
        /// `PATCH`: replace the item, with `If-Match` from its version.
        case update
        /// `DELETE`: delete the item, with `If-Match` from the snapshot's version.
        case delete
    }

    /// The queue position; strictly increasing, never reused, also across restarts.
    public var id: Int64
    /// What the operation does.
    public var kind: Kind
    /// The table of the item.
    public var table: String
    /// The id of the item.
    public var itemId: String
    /// The item as it will be sent: the current local item for an insert or update, the snapshot given to
    /// `delete` for a delete (nil for a delete with no snapshot).
    public var item: JSONObject?
    /// Bumped on every change of the operation (a collapse, a resolution); an error recorded for an older
    /// revision can no longer be resolved.
    public var revision: Int64

    /// Creates an operation value.
    public init(id: Int64, kind: Kind, table: String, itemId: String, item: JSONObject?, revision: Int64 = 0) {
        self.id = id
        self.kind = kind
        self.table = table
        self.itemId = itemId
        self.item = item
        self.revision = revision
    }
}
