import OfflineSyncCore
import OfflineSyncStore
/// A delete of an item this device inserted, whose insert may have reached the server but never brought back the
/// server's `version` (its answer was lost, or it was a 409): the delete has no `version` for `If-Match`, and sent
/// without one it would delete whatever row holds the id, another writer's too. So it reads the server's row first
/// and takes that as the answer a conditional delete would have had: no row (or a soft-deleted one) is a delete done;
/// a row holding what this device sent (``TableOperation/earlierAttemptLanded(in:)``) is deleted with its version;
/// any other row is a conflict (412) for the conflict handler, which sees the row and, with `.useClient`, deletes it
/// with the version it showed.
extension SyncContext {
    /// Whether sending `operation` starts by reading the server's row: a delete without a `version` (`version`) and
    /// without a base, that sent content before (an insert, or an insert updated, that became a delete). A delete
    /// of a pulled item has a base; a plain delete sends no content.
    static func readsServerRowFirst(_ operation: TableOperation, version: String?) -> Bool {
        operation.kind == .delete && version == nil && operation.base == nil && !operation.sentContents.isEmpty
    }

    /// The answer the server's row of `operation`'s item gives a delete: `.preconditionFailed` with the row (deleted
    /// rows included), or `.notFound` when the server has none.
    /// - Throws: what the remote's read throws.
    func serverRowAnswer(forDeleteOf operation: TableOperation) async throws -> RemoteError {
        guard let row = try await serverRows(table: operation.table, itemId: operation.itemId).first else { return .notFound }
        return .preconditionFailed(serverItem: row)
    }

    /// The server's rows of `itemId` in `table`, soft-deleted ones included: a read by id, keeping only the rows whose
    /// id matches (case-insensitively, as ids do) whatever else the server sent.
    /// - Throws: what the remote's read throws.
    func serverRows(table: String, itemId: String) async throws -> [JSONObject] {
        let query = Query(table: table, filter: Field("id") == .string(itemId), top: 2, includeDeleted: true)
        let key = ItemID.key(itemId)
        return try await remote.read(query).items.filter { $0["id"]?.stringValue.map(ItemID.key) == key }
    }

    /// The message of a delete that met a row this device never saw and was not resolved.
    static let unseenRowMessage = "The server holds another writer's item with this id, which this device never saw, so "
        + "the delete was not sent; resolve the error (cancelAndDiscard keeps the server's item), or resolve such "
        + "conflicts with a conflict handler."
}
