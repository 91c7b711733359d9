import OfflineSyncCore
import OfflineSyncStore
/// A pulled page sorted into what the store gets: the records to upsert, the ids of soft-deleted records to remove,
/// and the records left out, each with the reason (a sentence).
///
/// Records without a string id and deletions of invalid ids are always left out; records whose item has a pending
/// operation are passed over silently. The other records' content is checked only when `checkingItems` is set:
/// the engine first lets the store's `apply` validate the page, and sorts it again with checks when the store
/// refuses it.
struct PulledPage {
    private(set) var upserts: [JSONObject] = []
    private(set) var deletes: [String] = []
    private(set) var skipped: [(item: JSONObject, reason: String)] = []
    let table: String

    init(_ items: [JSONObject], table: String, pending: Set<String>, checkingItems: Bool) {
        self.table = table
        for item in items {
            guard let id = item["id"]?.stringValue else {
                skipped.append((item, "The record has no string \"id\"."))
                continue
            }
            if !pending.isEmpty, pending.contains(ItemID.key(id)) { continue }
            if SystemProperties.isDeleted(item) {
                if let violation = ItemID.violation(in: id) {
                    skipped.append((item, "The id \"\(id)\" is invalid: \(violation)."))
                } else {
                    deletes.append(id)
                }
                continue
            }
            guard checkingItems else {
                upserts.append(item)
                continue
            }
            do throws(DataSourceError) {
                try StoreChange.validateItem(item, table: table)
                upserts.append(item)
            } catch {
                skipped.append((item, error.description))
            }
        }
    }

    /// The page's changes followed by `saving` (the delta token's row), or nil when there is nothing to apply.
    func changes(saving: StoreChange?) -> [StoreChange]? {
        var changes: [StoreChange] = []
        if !deletes.isEmpty { changes.append(.delete(table: table, ids: deletes)) }
        if !upserts.isEmpty { changes.append(.upsert(table: table, items: upserts)) }
        if let saving { changes.append(saving) }
        return changes.isEmpty ? nil : changes
    }
}
