import OfflineSyncCore
/// The conditions a plan tests on each walked index entry before reading its item (``IndexPlanner/Plan/entryResidual``),
/// prepared once per read: a comparison of instants on an indexed timestamp field is answered from the entry's
/// bytes (its text parsed in place), any other condition on the entry's values decoded into an object.
struct EntryTest {
    /// `field op instant`, as ``Filter/matches(_:)`` compares instants.
    private struct InstantCondition {
        var field: Int
        var op: ComparisonOperator
        var milliseconds: Int64
    }

    private var instants: [InstantCondition] = []
    private var others: Filter?

    /// The test of `filter`'s conjuncts on entries of an index on `fields`.
    init(_ filter: Filter, fields: [String]) {
        for conjunct in IndexConditions(filter).conjuncts {
            switch conjunct {
            case .comparison(let field, let op, let value):
                if let position = fields.firstIndex(of: field.name), let instant = Filter.comparedInstant(field: field.name, value) {
                    instants.append(InstantCondition(field: position, op: op, milliseconds: instant))
                    continue
                }
            case .dateComparison(let field, let op, let date):
                if let position = fields.firstIndex(of: field.name) {
                    instants.append(InstantCondition(field: position, op: op, milliseconds: Timestamp.milliseconds(of: date)))
                    continue
                }
            default: break
            }
            others = others.map { $0 && conjunct } ?? conjunct
        }
    }

    /// Whether the entry at `position` of `index` passes, or nil when an entry value is an array or an object and
    /// the item must be tested instead.
    func passes(_ index: TableIndex, at position: Int) -> Bool? {
        let instantsHold = index.withEntry(at: position) { entry in
            instants.allSatisfy { condition in
                var offset = 0
                for _ in 0..<condition.field { offset += OrderedKey.length(ofValueAt: offset, in: entry) }
                return Self.compare(Self.instant(at: offset, in: entry), condition)
            }
        }
        guard instantsHold else { return false }
        guard let others else { return true }
        return index.values(at: position).map { others.matches($0) }
    }

    /// The instant a string value encoded at `offset` reads as, or nil for another value (a timestamp holds no NUL,
    /// so an escaped string is not one).
    private static func instant(at offset: Int, in entry: UnsafeRawBufferPointer) -> Int64? {
        guard offset < entry.count, entry[offset] == 0x04 else { return nil }
        var end = offset + 1
        while end < entry.count, entry[end] != 0x00 { end += 1 }
        guard end + 1 < entry.count, entry[end + 1] == 0x00 else { return nil }
        return UnsafeRawBufferPointer(rebasing: entry[(offset + 1)..<end]).withMemoryRebound(to: UInt8.self) { Timestamp.parseMilliseconds($0) }
    }

    /// `Filter`'s comparison of an instant: a value that is not one satisfies only `!=`.
    private static func compare(_ instant: Int64?, _ condition: InstantCondition) -> Bool {
        guard let instant else { return condition.op == .notEqual }
        switch condition.op {
        case .equal: return instant == condition.milliseconds
        case .notEqual: return instant != condition.milliseconds
        case .lessThan: return instant < condition.milliseconds
        case .lessThanOrEqual: return instant <= condition.milliseconds
        case .greaterThan: return instant > condition.milliseconds
        case .greaterThanOrEqual: return instant >= condition.milliseconds
        }
    }
}
