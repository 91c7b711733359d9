import OfflineSyncCore
package import Dispatch

/// The entries a large upsert adds to its table's indexes, built and sorted on a thread of their own while
/// ``TableSet`` stores the items, so that a batch of thousands of items pays on its own thread only for what needs
/// the slots: putting them in, and the merge.
///
/// Until the slots are known, each entry ends with the item's position in the upsert where its slot will go; the
/// positions keep the entries of equal values in the items' order, and the slots put in later change only that.
package struct AddedIndexEntries: Sendable {
    /// Upserts of at least this many items on a table with indexes build their entries aside; below it, handing
    /// the work over costs more than it saves.
    static let minimumItems = 256

    /// One serial queue for every store: its thread is not one of Swift's shared ones. The journal encodes the
    /// second part of a large upsert on it too (`ItemsEncodedAside`), after the upsert's entries.
    package static let queue = DispatchQueue(label: "OfflineSync.AddedIndexEntries")

    private let built: QueuedWork<[IndexEntryBatch]>

    /// Starts building the entries of `items`, one batch per index, for indexes on each of `fields`.
    init(items: [JSONObject], fields: [[String]]) {
        built = QueuedWork(on: Self.queue) {
            fields.map { fields in
                var batch = IndexEntryBatch()
                for (position, item) in items.enumerated() { batch.append(item, fields: fields, slot: Int32(position)) }
                batch.sort()
                return batch
            }
        }
    }

    /// Waits until the entries are built, then returns them with the slot of the item at each position put in
    /// (`slots[position]`; the entry of an item that got none is left out), in order, one batch per index.
    func entries(slots: [Int32?]) -> [IndexEntryBatch] {
        built.wait().map { $0.replacingPositions(with: slots) }
    }
}
