/// Chooses an index for a query, or a scan. An index serves a query when the filter's top-level conjunction holds
/// equality conditions on a prefix of its fields, possibly range conditions (`<`, `<=`, `>`, `>=`) on the next
/// field, and `orderBy` follows the fields after the equalities, all in one direction. The whole filter is still
/// tested on every item the index yields, so other conditions cost nothing in accuracy.
struct IndexPlanner {
    /// A chosen index and how to walk it.
    struct Choice {
        var index: Int
        var prefix: [JSONValue]
        var equalityFields: [String]
        var descending: Bool
        /// The field after the equalities that range conditions narrow, with their bounds.
        var range: RangeBounds?
    }

    /// Range conditions on one field: every match lies between the bounds in the index's order.
    struct RangeBounds {
        var field: String
        /// A `>` (exclusive) or `>=` (inclusive) bound.
        var lower: (value: JSONValue, inclusive: Bool)?
        /// A `<` (exclusive) or `<=` (inclusive) bound.
        var upper: (value: JSONValue, inclusive: Bool)?
    }

    /// The best usable index among `indexes` (most fields fixed, then most ordering served), or why there is none.
    static func choose(_ query: Query, among indexes: [TableIndex]) -> Result<Choice, PlanRefusal> {
        guard !indexes.isEmpty else { return .failure(PlanRefusal("no index is defined on \(query.table)")) }
        let equalities = equalityConditions(in: query.filter)
        var best: (choice: Choice, score: Int)?
        for (position, index) in indexes.enumerated() {
            let fields = index.definition.fields
            var prefix: [JSONValue] = []
            for field in fields {
                guard let value = equalities[field] else { break }
                prefix.append(value)
            }
            let rest = fields.dropFirst(prefix.count)
            let order = query.orderBy
            guard order.count <= rest.count, zip(order, rest).allSatisfy({ $0.field == $1 }) else { continue }
            guard order.allSatisfy({ $0.ascending == order.first?.ascending }) else { continue }
            let range = rest.first.flatMap { rangeBounds(on: $0, in: query.filter) }
            guard !prefix.isEmpty || !order.isEmpty || range != nil else { continue }
            let score = prefix.count * 100 + (range == nil ? 0 : 50) + order.count
            if best.map({ score > $0.score }) ?? true {
                let choice = Choice(index: position, prefix: prefix, equalityFields: Array(fields.prefix(prefix.count)),
                                    descending: order.first.map { !$0.ascending } ?? false, range: range)
                best = (choice, score)
            }
        }
        guard let best else {
            return .failure(PlanRefusal("no index has the filter's equality fields as a prefix followed by a range condition or the orderBy fields"))
        }
        return .success(best.choice)
    }

    /// The bounds that `<`, `<=`, `>` and `>=` conditions of the filter's top-level conjunction put on `field`,
    /// or nil when there are none. Conditions that compare instants (a string on a timestamp field) are left
    /// out: their order is not the strings' byte order.
    static func rangeBounds(on field: String, in filter: Filter?) -> RangeBounds? {
        var bounds = RangeBounds(field: field)
        for case .comparison(let compared, let op, let value) in conjuncts(of: filter)
        where compared.name == field && isRangeBound(value, field: field) {
            switch op {
            case .greaterThan where bounds.lower == nil: bounds.lower = (value, false)
            case .greaterThanOrEqual where bounds.lower == nil: bounds.lower = (value, true)
            case .lessThan where bounds.upper == nil: bounds.upper = (value, false)
            case .lessThanOrEqual where bounds.upper == nil: bounds.upper = (value, true)
            default: break
            }
        }
        return bounds.lower == nil && bounds.upper == nil ? nil : bounds
    }

    /// The conditions of the filter's top-level conjunction, left to right (`a and (b and c)` gives a, b, c).
    private static func conjuncts(of filter: Filter?) -> [Filter] {
        var result: [Filter] = []
        var pending = filter.map { [$0] } ?? []
        while let next = pending.popLast() {
            if case .and(let lhs, let rhs) = next {
                pending.append(rhs)
                pending.append(lhs)
            } else {
                result.append(next)
            }
        }
        return result
    }

    private static func isRangeBound(_ value: JSONValue, field: String) -> Bool {
        switch value {
        case .bool, .int: return true
        case .double(let number): return number.isFinite
        case .string: return !Filter.isTimestampField(field)
        case .null, .array, .object: return false
        }
    }

    /// Field → value for each `field == value` in the filter's top-level conjunction whose matches all sort equal
    /// to `value` (strings compared as instants on timestamp fields, and NaN, are left out).
    static func equalityConditions(in filter: Filter?) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for case .comparison(let field, .equal, let value) in conjuncts(of: filter)
        where result[field.name] == nil && isIndexable(value, field: field.name) {
            result[field.name] = value
        }
        return result
    }

    private static func isIndexable(_ value: JSONValue, field: String) -> Bool {
        switch value {
        case .null, .bool, .int: return true
        case .double(let number): return number.isFinite
        case .string: return !Filter.isTimestampField(field)
        case .array, .object: return false
        }
    }
}

/// Why no index serves a query.
struct PlanRefusal: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}
