/// Chooses an index for a query, or a scan. An index serves a query when the filter's top-level conjunction holds
/// equality conditions on a prefix of its fields and `orderBy` follows the next fields, all in one direction.
/// The whole filter is still tested on every item the index yields, so other conditions cost nothing in accuracy.
struct IndexPlanner {
    /// A chosen index and how to walk it.
    struct Choice {
        var index: Int
        var prefix: [JSONValue]
        var equalityFields: [String]
        var descending: Bool
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
            guard !prefix.isEmpty || !order.isEmpty else { continue }
            let score = prefix.count * 100 + order.count
            if best.map({ score > $0.score }) ?? true {
                let choice = Choice(index: position, prefix: prefix, equalityFields: Array(fields.prefix(prefix.count)),
                                    descending: order.first.map { !$0.ascending } ?? false)
                best = (choice, score)
            }
        }
        guard let best else {
            return .failure(PlanRefusal("no index has the filter's equality fields as a prefix followed by the orderBy fields"))
        }
        return .success(best.choice)
    }

    /// Field → value for each `field == value` in the filter's top-level conjunction whose matches all sort equal
    /// to `value` (strings compared as instants on timestamp fields, and NaN, are left out).
    static func equalityConditions(in filter: Filter?) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        var pending = filter.map { [$0] } ?? []
        while let next = pending.popLast() {
            switch next {
            case .and(let lhs, let rhs):
                pending.append(rhs)
                pending.append(lhs)
            case .comparison(let field, .equal, let value) where result[field.name] == nil && isIndexable(value, field: field.name):
                result[field.name] = value
            default:
                break
            }
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
