import OfflineSyncCore
import OfflineSyncStore
/// Where an incremental pull stands in the server's `(updatedAt, id)` order: just after the record it stored last.
///
/// A pull asks for the records after its key, ordered by `updatedAt` then `id`, so a row that changes on the server
/// during the pull can only move past the key (its new `updatedAt` is later), never shift the rows still to come.
/// The pull never compares two ids itself: only the server orders them, by its own collation, so a server that
/// orders ids case-insensitively is paged as correctly as one that orders them by their bytes.
struct PullKey: Sendable, Hashable {
    /// The record's `updatedAt` in milliseconds since 1970.
    var updatedAt: Int64
    /// The record's id, exactly as the server sent it; nil when no record at `updatedAt` is known to be stored
    /// (the start of a pull, a delta token of an earlier version, or a server whose timestamps are finer than the
    /// milliseconds it sends): the pull then asks for every record at or after `updatedAt`.
    var id: String?

    /// The key of a pull that has stored nothing yet: every record.
    static let start = PullKey(updatedAt: 0, id: nil)

    /// The key of a pulled record, or nil when it has no `updatedAt` timestamp or no string id.
    init?(of record: JSONObject) {
        guard let id = record["id"]?.stringValue,
              let updatedAt = record["updatedAt"]?.stringValue.flatMap(Timestamp.milliseconds(from:)) else { return nil }
        self.init(updatedAt: updatedAt, id: id)
    }

    /// A key from its parts.
    init(updatedAt: Int64, id: String?) {
        self.updatedAt = updatedAt
        self.id = id
    }

    /// The records after this key: `updatedAt gt T or (updatedAt eq T and id gt 'id')`, or `updatedAt ge T` without
    /// an id. The timestamp is written as a string, which every dialect sends as a date literal.
    var filter: Filter {
        let instant = JSONValue.string(Timestamp.string(fromMilliseconds: updatedAt))
        guard let id else { return Field("updatedAt") >= instant }
        return Field("updatedAt") > instant || (Field("updatedAt") == instant && Field("id") > .string(id))
    }

    /// The order the pull pages in: `updatedAt`, then `id`, both ascending.
    static let order: [SortKey] = [.ascending("updatedAt"), .ascending("id")]
}
