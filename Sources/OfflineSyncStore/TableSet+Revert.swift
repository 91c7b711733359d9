import OfflineSyncCore
/// What a batch changed, noted while ``TableSet/apply(_:packed:recording:entriesAside:)`` applied it, so that
/// ``TableSet/revert(_:)`` can take it back: for each item the batch stored or removed, in order, a copy of its
/// packed form just before (nil when it had none).
package struct BatchReversal: Sendable {
    private var steps: [(table: String, id: String, previous: ItemTable.PackedCopy?)] = []

    /// An empty record, for a batch about to be applied.
    package init() {}

    /// The item whose id is `id` (matched case-insensitively) in `table` was stored or removed; `previous` is a copy
    /// of what the table held under it just before, if anything.
    mutating func note(table: String, id: String, previous: ItemTable.PackedCopy?) {
        steps.append((table, id, previous))
    }

    /// The changes that undo the steps, latest first: each item gets back what it was before its step.
    fileprivate var inverse: [StoreChange] {
        steps.reversed().map { step in
            guard let item = step.previous?.item else { return .delete(table: step.table, ids: [step.id]) }
            return .upsert(table: step.table, items: [item])
        }
    }
}

extension TableSet {
    /// Takes back the batch `reversal` was recorded for, which must be the last one applied: every item it stored
    /// or removed gets back what it was before (its indexes follow), so the tables hold what they held before.
    package mutating func revert(_ reversal: BatchReversal) {
        apply(reversal.inverse)
    }
}
