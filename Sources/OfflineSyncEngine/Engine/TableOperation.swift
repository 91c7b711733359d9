public import OfflineSyncCore
import OfflineSyncStore
/// One pending change of the operation queue (`__operations`), waiting to be pushed.
///
/// Operations are pushed in ascending ``id`` order across all tables. Later local writes to the same item are
/// collapsed into the pending operation, which keeps its id and so its position.
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
    /// Whether a request for this operation may already have reached the server.
    ///
    /// Set, and stored, before a push sends the operation; kept across restarts and collapses until the operation
    /// leaves the queue. A later delete never drops an attempted insert: it becomes a delete that is sent.
    public var attempted: Bool
    /// The contents (the item without `version`, `updatedAt`, `createdAt` and `deleted`) that attempts of this
    /// operation may have sent, oldest first, at most ``maximumSentContents``. A 409 or 412 whose server row holds
    /// one of them was caused by this device's own earlier attempt, not by another writer.
    public var sentContents: [JSONObject]

    /// How many contents ``sentContents`` keeps; older ones are forgotten first.
    public static let maximumSentContents = 8
    /// The base of an update or delete: the server's copy of the item that the local change started from (the item
    /// as last pulled, or as the server last answered this device), handed to a conflict handler as
    /// ``SyncConflict/baseItem``. Kept across collapses (an update after an update keeps the first base); nil for an
    /// insert, and for an operation queued by a version that kept no bases.
    public var base: JSONObject?

    /// Creates an operation value.
    public init(id: Int64, kind: Kind, table: String, itemId: String, item: JSONObject?, revision: Int64 = 0,
                attempted: Bool = false, sentContents: [JSONObject] = [], base: JSONObject? = nil) {
        self.id = id
        self.kind = kind
        self.table = table
        self.itemId = itemId
        self.item = item
        self.revision = revision
        self.attempted = attempted
        self.sentContents = sentContents
        self.base = base
    }
}
