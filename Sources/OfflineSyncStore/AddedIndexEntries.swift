package import OfflineSyncCore

/// The entries a large upsert adds to its table's indexes, built and sorted before ``TableSet`` stores the items, so
/// that a store can build them on another core while it encodes the batch (the journal store does), and the apply
/// pays only for what needs the slots: putting them in, and the merge.
///
/// Until the slots are known, each entry ends with the item's position in the upsert where its slot will go; the
/// positions keep the entries of equal values in the items' order, and the slots put in later change only that.
package struct AddedIndexEntries: Sendable {
    /// Upserts of at least this many items on a table with indexes are worth building aside; below it, handing the
    /// work to another core costs more than it saves.
    package static let minimumItems = 256

    /// The fields of each index the entries were built for, in the table's order: an apply uses the entries only
    /// while the table's indexes are still these.
    let fields: [[String]]
    private let built: [IndexEntryBatch]

    /// Builds the entries of `items`, one batch per index, for indexes on each of `fields`. Costs the time of a sort
    /// per index: call it away from the store's actor.
    package init(items: [JSONObject], fields: [[String]]) {
        self.fields = fields
        built = fields.map { fields in
            var batch = IndexEntryBatch()
            for (position, item) in items.enumerated() { batch.append(item, fields: fields, slot: Int32(position)) }
            batch.sort()
            return batch
        }
    }

    /// The entries with the slot of the item at each position put in (`slots[position]`; the entry of an item that
    /// got none is left out), in order, one batch per index.
    func entries(slots: [Int32?]) -> [IndexEntryBatch] {
        built.map { $0.replacingPositions(with: slots) }
    }
}
