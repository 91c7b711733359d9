import OfflineSyncCore
import OfflineSyncStore
/// The ids of the queued operations of each item, kept in memory by the context so that a local write or a
/// push step finds an item's operations without scanning `__operations`.
///
/// The store stays the source of truth: the index is loaded from it on first use, then follows every change the
/// context commits to `__operations` (``follow(_:)``, from ``StoreMirror/didCommit(_:writes:)`` alone), and is loaded
/// again when it cannot follow one.
struct OperationIndex: Sendable {
    private var idsByItem: [ItemKey: [Int64]] = [:]
    private var itemByOperation: [Int64: ItemKey] = [:]
    /// How many operations are indexed: the queue's length.
    var count: Int { itemByOperation.count }

    /// Indexes `operations`.
    init(_ operations: [TableOperation]) {
        for operation in operations.sorted(by: { $0.id < $1.id }) {
            insert(operation.id, ItemKey(table: operation.table, itemId: operation.itemId))
        }
    }

    /// The operation ids of one item (case-insensitive id), ascending: the last is the latest.
    func ids(table: String, itemId: String) -> [Int64] {
        idsByItem[ItemKey(table: table, itemId: itemId)] ?? []
    }

    /// Takes in a change of `__operations`: a saved row adds its operation when it is new, a deleted row removes
    /// its operation, a `deleteAll` without a filter empties it. Returns the greatest id it added (0 when none), or
    /// nil when it cannot follow the change (a filtered `deleteAll`, or a row it cannot read): load the index again.
    mutating func follow(_ change: StoreChange) -> Int64? {
        var greatestAdded: Int64 = 0
        switch change {
        case .upsert(_, let rows):
            for row in rows {
                guard let id = row["opId"]?.intValue else { return nil }
                // Most saved rows are of queued operations (a mark, a revision): only a new one is read further.
                guard itemByOperation[id] == nil else { continue }
                guard let table = row["table"]?.stringValue, let itemId = row["itemId"]?.stringValue else { return nil }
                insert(id, ItemKey(table: table, itemId: itemId))
                greatestAdded = max(greatestAdded, id)
            }
        case .delete(_, let rowIDs):
            for rowID in rowIDs {
                guard let id = Int64(rowID) else { return nil }
                remove(id)
            }
        case .deleteAll(_, nil):
            self = OperationIndex([])
        case .deleteAll:
            return nil
        }
        return greatestAdded
    }

    /// Records an operation, in id order (ids only grow, so a new one goes last).
    private mutating func insert(_ id: Int64, _ key: ItemKey) {
        itemByOperation[id] = key
        var ids = idsByItem.removeValue(forKey: key) ?? []
        ids.insert(id, at: ids.lastIndex { $0 < id }.map { $0 + 1 } ?? 0)
        idsByItem[key] = ids
    }

    private mutating func remove(_ id: Int64) {
        guard let key = itemByOperation.removeValue(forKey: id), var ids = idsByItem[key],
              let index = ids.firstIndex(of: id) else { return }
        ids.remove(at: index)
        idsByItem[key] = ids.isEmpty ? nil : ids
    }
}
