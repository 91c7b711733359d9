/// What a batch changed, noted while ``TableSet/apply(_:packed:recording:entriesAside:)`` applied it, so that
/// ``TableSet/revert(_:)`` can take it back: for each item the batch stored or removed, in order, the text the item
/// had just before (nil when it had none).
struct BatchReversal: Sendable {
    private var steps: [(table: String, id: String, previousText: [UInt8]?)] = []

    /// An empty record, for a batch about to be applied.
    init() {}

    /// The item whose id is `id` (matched case-insensitively) in `table` was stored or removed; `previousText` is
    /// its text just before, if any.
    mutating func note(table: String, id: String, previousText: [UInt8]?) {
        steps.append((table, id, previousText))
    }

    /// The changes that undo the steps, latest first: each item gets back the text it had before its step.
    fileprivate var inverse: [StoreChange] {
        steps.reversed().map { step in
            guard let text = step.previousText, case .object(let item)? = try? JSONValue(parsing: text) else {
                return .delete(table: step.table, ids: [step.id])
            }
            return .upsert(table: step.table, items: [item])
        }
    }
}

extension TableSet {
    /// Takes back the batch `reversal` was recorded for, which must be the last one applied: every item it stored
    /// or removed gets back the text it had before (its indexes follow), so the tables hold what they held before.
    mutating func revert(_ reversal: BatchReversal) {
        apply(reversal.inverse)
    }
}
