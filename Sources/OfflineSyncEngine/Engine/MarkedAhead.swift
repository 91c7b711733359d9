import OfflineSyncCore
import OfflineSyncStore
/// Operations a push marked attempted ahead of their turn, each with the operation as stored by the mark and the
/// local item it was marked with, so that its turn need not read both from the store again.
///
/// A run of marks costs one `apply` (``SyncContext/markingAttempted(_:sending:upcoming:)``) and reads every
/// operation of the run and its item; without this, each operation's turn read them a second time. An entry is
/// dropped as soon as a committed transaction's changes touch the operation's row or its item
/// (``forget(touchedBy:)``, called by ``StoreMirror/didCommit(_:writes:)`` for every transaction of the engine), so an
/// entry always holds what the store holds. A transaction's body only stages: the entries it marks and those it takes
/// are kept or dropped by ``rememberStaged()`` once its changes are committed and followed, and ``discardStaged()``
/// forgets both when they are not.
struct MarkedAhead {
    /// An operation as its mark stored it, and its local item then (nil: none).
    struct Entry: Sendable {
        var operation: TableOperation
        var item: JSONObject?
    }

    private var entries: [Int64: Entry] = [:]
    /// The operations of each item; may name operations already taken. (An operation's own row is found by its id.)
    private var byItem: [ItemKey: [Int64]] = [:]

    /// Entries whose marks a transaction staged: kept by ``rememberStaged()`` once the transaction's changes were
    /// followed (they touch the entries' own rows).
    private var staged: [Entry] = []
    /// Entries the running transaction took: dropped by ``rememberStaged()``, kept by ``discardStaged()``.
    private var taken: Set<Int64> = []

    /// Holds `entries`, whose marks the running transaction staged, until ``rememberStaged()``.
    mutating func stage(_ entries: [Entry]) {
        staged += entries
    }

    /// Drops the staged entries, their marks were not stored, and gives back the entries taken.
    mutating func discardStaged() {
        staged = []
        taken = []
    }

    /// Drops the entries taken and keeps the staged ones (after ``forget(touchedBy:)`` of the changes that store
    /// their marks).
    mutating func rememberStaged() {
        for id in taken { entries[id] = nil }
        taken = []
        for entry in staged { remember(entry.operation, item: entry.item) }
        staged = []
    }

    /// Keeps `operation`, just stored, with its local `item`.
    mutating func remember(_ operation: TableOperation, item: JSONObject?) {
        entries[operation.id] = Entry(operation: operation, item: item)
        byItem[ItemKey(table: operation.table, itemId: operation.itemId), default: []].append(operation.id)
    }

    /// The entry of operation `id`, taken: the running transaction does not see it again, and its commit drops it;
    /// nil when there is none (or it was dropped or taken).
    mutating func take(_ id: Int64) -> Entry? {
        guard let entry = peek(id) else { return nil }
        taken.insert(id)
        return entry
    }

    /// The entry of operation `id`, left in place; nil when there is none (or the running transaction took it).
    func peek(_ id: Int64) -> Entry? {
        taken.contains(id) ? nil : entries[id]
    }

    /// The entry of operation `id` as the running transaction's staged `changes` leave it: nil when there is none,
    /// it was taken, or `changes` write, delete or may delete its operation row or its item (as
    /// ``forget(touchedBy:)`` would drop it once they are committed).
    func peek(_ id: Int64, untouchedBy changes: [StoreChange]) -> Entry? {
        guard let entry = peek(id) else { return nil }
        let key = ItemKey(table: entry.operation.table, itemId: entry.operation.itemId)
        func namesItem(_ table: String, _ itemId: String?) -> Bool {
            table == key.table && (itemId.map { ItemID.hasKey($0, key.id) } ?? false)
        }
        for change in changes {
            switch change {
            case .upsert(EngineTables.operations, let rows):
                if rows.contains(where: { row in row["id"]?.stringValue.map { Int64($0).map { $0 == id } ?? true } ?? false }) {
                    return nil
                }
            case .delete(EngineTables.operations, let rowIDs):
                if rowIDs.contains(where: { Int64($0).map { $0 == id } ?? true }) { return nil }
            case .upsert(let table, let items):
                if items.contains(where: { namesItem(table, $0["id"]?.stringValue) }) { return nil }
            case .delete(let table, let ids):
                if ids.contains(where: { namesItem(table, $0) }) { return nil }
            case .deleteAll(let table, _):
                if table == EngineTables.operations || table == key.table { return nil }
            }
        }
        return entry
    }

    /// Drops every entry, staged and taken ones too.
    mutating func removeAll() {
        entries.removeAll()
        byItem.removeAll()
        staged = []
        taken = []
    }

    /// Drops the entries whose operation row or item `changes` write, delete or may delete.
    mutating func forget(touchedBy changes: [StoreChange]) {
        guard !entries.isEmpty else { return }
        for change in changes {
            switch change {
            case .upsert(EngineTables.operations, let rows):
                for row in rows {
                    guard let rowID = row["id"]?.stringValue else { continue }
                    guard forgetOperation(rowID: rowID) else { return removeAll() }
                }
            case .delete(EngineTables.operations, let rowIDs):
                for rowID in rowIDs {
                    guard forgetOperation(rowID: rowID) else { return removeAll() }
                }
            case .upsert(let table, let items):
                for item in items { if let id = item["id"]?.stringValue { forget(ItemKey(table: table, itemId: id)) } }
            case .delete(let table, let ids):
                for id in ids { forget(ItemKey(table: table, itemId: id)) }
            case .deleteAll(let table, _):
                if table == EngineTables.operations { return removeAll() }
                entries = entries.filter { $0.value.operation.table != table }
            }
        }
    }

    private mutating func forget(_ key: ItemKey) {
        guard let ids = byItem.removeValue(forKey: key) else { return }
        for id in ids { entries[id] = nil }
    }

    /// Drops the operation whose row id (``EngineTables/rowID(forOperation:)``) is `rowID`; false when `rowID`
    /// names no operation id, so that the caller drops everything rather than keep what the change may touch.
    private mutating func forgetOperation(rowID: String) -> Bool {
        guard let id = Int64(rowID) else { return false }
        entries[id] = nil
        return true
    }
}
