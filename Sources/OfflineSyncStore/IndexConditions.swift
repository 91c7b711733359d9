import OfflineSyncCore
/// The conditions of a filter's top-level conjunction that an index can serve: equalities that fix a field's
/// value, and range bounds that narrow a field to a span of the index's order. Each remembers which conjunct it
/// came from, so the planner knows which conjuncts the index alone decides and which an item must still be tested
/// against.
struct IndexConditions {
    /// The filter's top-level conjunction, left to right (`a and (b and c)` gives a, b, c).
    let conjuncts: [Filter]
    /// Field → the value and conjunct of the first `field == value` whose matches are exactly the entries that
    /// encode to `value` (strings that read as instants on timestamp fields, NaN, arrays and objects are left out).
    let equalities: [String: (value: JSONValue, conjunct: Int)]

    init(_ filter: Filter?) {
        var conjuncts: [Filter] = []
        var pending = filter.map { [$0] } ?? []
        while let next = pending.popLast() {
            if case .and(let lhs, let rhs) = next {
                pending.append(rhs)
                pending.append(lhs)
            } else {
                conjuncts.append(next)
            }
        }
        var equalities: [String: (value: JSONValue, conjunct: Int)] = [:]
        for (position, conjunct) in conjuncts.enumerated() {
            guard case .comparison(let field, .equal, let value) = conjunct, equalities[field.name] == nil,
                  Self.isExact(value, field: field.name, allowingNull: true) else { continue }
            equalities[field.name] = (value, position)
        }
        self.conjuncts = conjuncts
        self.equalities = equalities
    }

    /// The bounds the filter's range conditions put on `field`, or nil when there are none.
    ///
    /// `<`, `<=`, `>`, `>=` with a Boolean, a finite number or a string bound the field exactly: the entries within
    /// are the matches. So does a string on a timestamp field when it does not read as an instant (a date, a time
    /// without seconds or zone): the filter compares it as text (``Filter/comparedInstant(field:_:)``). Comparisons
    /// of instants on a timestamp field (a date, or a string that reads as one) bound it loosely: an ISO 8601 text's
    /// first ten characters are its day in its own offset, less than a day from the instant's, so the entries whose text lies between the day
    /// before the lower instant's and the day after the upper one's hold every match, and each is tested. Only
    /// bounds of one kind are taken (values of different kinds never compare), the first of each side.
    func rangeBounds(on field: String) -> RangeBounds? {
        var bounds = RangeBounds(field: field)
        for (position, conjunct) in conjuncts.enumerated() {
            guard let (op, bound) = Self.bound(conjunct, on: field) else { continue }
            if let kind = bounds.kind, kind != bound.kind { continue }
            let isLower = op == .greaterThan || op == .greaterThanOrEqual || op == .equal
            let isUpper = op == .lessThan || op == .lessThanOrEqual || op == .equal
            guard (isLower && bounds.lower == nil) || (isUpper && bounds.upper == nil) else { continue }
            bounds.kind = bound.kind
            if isLower, bounds.lower == nil { bounds.lower = bound.lower(op) }
            if isUpper, bounds.upper == nil { bounds.upper = bound.upper(op) }
            if bound.isExact, op != .equal { bounds.consumed.insert(position) }
        }
        return bounds.lower == nil && bounds.upper == nil ? nil : bounds
    }

    /// A bound value of one conjunct on `field`, encoded, with how it bounds each side.
    private struct Bound {
        var kind: UInt8
        var isExact: Bool
        /// For an exact bound, the value; for an instant, the day before (lower) and the day after next (upper).
        var lowerBytes: [UInt8]?
        var upperBytes: [UInt8]?

        func lower(_ op: ComparisonOperator) -> RangeBounds.Side? {
            lowerBytes.map { RangeBounds.Side(bytes: $0, inclusive: !isExact || op != .greaterThan) }
        }

        func upper(_ op: ComparisonOperator) -> RangeBounds.Side? {
            upperBytes.map { RangeBounds.Side(bytes: $0, inclusive: isExact && op != .lessThan) }
        }
    }

    private static func bound(_ conjunct: Filter, on field: String) -> (ComparisonOperator, Bound)? {
        switch conjunct {
        case .comparison(let compared, let op, let value) where compared.name == field && op != .notEqual:
            if let instant = Filter.comparedInstant(field: field, value) { return (op, instantBound(instant)) }
            guard op != .equal, isExact(value, field: field, allowingNull: false) else { return nil }
            var bytes: [UInt8] = []
            OrderedKey.append(value, to: &bytes)
            return (op, Bound(kind: OrderedKey.kindBounds(of: value).lower, isExact: true, lowerBytes: bytes, upperBytes: bytes))
        case .dateComparison(let compared, let op, let date) where compared.name == field && op != .notEqual:
            return (op, instantBound(Timestamp.milliseconds(of: date)))
        default:
            return nil
        }
    }

    /// The loose bounds of the texts that can read as `milliseconds`: from the day before its UTC day (inclusive)
    /// to two days after it (exclusive), as `yyyy-MM-dd` strings; open where that leaves the years 0000…9999.
    private static func instantBound(_ milliseconds: Int64) -> Bound {
        let day: Int64 = 86_400_000
        func dayText(_ instant: (partialValue: Int64, overflow: Bool)) -> [UInt8]? {
            guard !instant.overflow, instant.partialValue >= firstInstant, instant.partialValue <= lastInstant else { return nil }
            var bytes: [UInt8] = []
            OrderedKey.append(.string(String(Timestamp.string(fromMilliseconds: instant.partialValue).prefix(10))), to: &bytes)
            return bytes
        }
        return Bound(kind: OrderedKey.kindBounds(of: .string("")).lower, isExact: false,
                     lowerBytes: dayText(milliseconds.subtractingReportingOverflow(day)),
                     upperBytes: dayText(milliseconds.addingReportingOverflow(2 * day)))
    }

    /// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z, the instants a four-digit year can write.
    private static let firstInstant: Int64 = -62_167_219_200_000
    private static let lastInstant: Int64 = 253_402_300_799_999

    /// Whether the entries that encode to `value` on `field` are exactly the items a comparison with it matches.
    private static func isExact(_ value: JSONValue, field: String, allowingNull: Bool) -> Bool {
        switch value {
        case .null: return allowingNull
        case .bool, .int: return true
        case .double(let number): return number.isFinite
        case .string: return Filter.comparedInstant(field: field, value) == nil
        case .array, .object: return false
        }
    }
}

/// Bounds on one field: every match lies between them in the index's order.
struct RangeBounds {
    /// One side: the encoded bound, and whether entries that start with it are within.
    struct Side {
        var bytes: [UInt8]
        var inclusive: Bool
    }

    var field: String
    /// The first byte of the bounds' kind (``OrderedKey/kindBounds(of:)``).
    var kind: UInt8?
    var lower: Side?
    var upper: Side?
    /// The conjuncts the bounds decide exactly: an entry within the bounds satisfies them.
    var consumed: Set<Int> = []
}

/// The entries of an index a walk covers: those at or after `lower` and before `upper`, each compared by its first
/// bytes as long as the bound (so a bound of encoded values covers every entry that starts with them).
struct EntryBounds {
    var lower: [UInt8]
    var lowerInclusive: Bool
    var upper: [UInt8]
    var upperInclusive: Bool

    /// The bounds of the entries that start with `prefix` (encoded values) and, with `range`, whose next value lies
    /// within its bounds (and is of their kind); nil when they cover the whole index (no prefix, no range).
    init?(after prefix: [UInt8], _ range: RangeBounds?) {
        guard let range, let kind = range.kind else {
            guard !prefix.isEmpty else { return nil }
            (lower, lowerInclusive, upper, upperInclusive) = (prefix, true, prefix, true)
            return
        }
        lower = prefix + (range.lower?.bytes ?? [kind])
        upper = prefix + (range.upper?.bytes ?? [kind + 1])
        lowerInclusive = range.lower?.inclusive ?? true
        upperInclusive = range.upper?.inclusive ?? false
    }
}

