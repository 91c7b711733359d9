@testable import OfflineSyncCore
@testable import OfflineSyncStore

/// Random items, batches and queries for the differential tests of the indexes: small domains of mixed kinds (so
/// ties, equal values and values of other kinds are common), timestamps written several ways in `updatedAt`, and
/// queries whose filters bound index fields in every position (equalities, one bound, both bounds, bounds shorter
/// than the stored timestamps) and whose orders repeat fields and mix kinds.
extension SeededRandom {
    /// The fields items may hold besides `id`.
    static let fields = ["a", "b", "c", "d", "updatedAt"]

    /// A value of a random kind from a small domain; nil is "missing".
    mutating func value() -> JSONValue? {
        switch below(10) {
        case 0: return nil
        case 1: return .null
        case 2: return .bool(below(2) == 0)
        case 3, 4: return .int(Int64(below(5)))
        case 5: return .double(Double(below(5)) + (below(2) == 0 ? 0 : 0.5))
        case 6, 7: return .string(pick(["x", "y", "z", "X", ""]))
        case 8: return .string(below(2) == 0 ? timestamp() : shortBound())
        default: return .array([.int(Int64(below(2)))])
        }
    }

    /// A timestamp around 2026-12-01, most often as the protocol writes them, else in another ISO 8601 form.
    mutating func timestamp() -> String {
        let day = pick(["2026-11-30", "2026-12-01", "2026-12-02"])
        let time = pick(["00:00:00", "09:20:30", "10:20:00", "10:20:30", "23:59:59"])
        switch below(8) {
        case 0: return "\(day)T\(time)Z"
        case 1: return "\(day)T\(time).5Z"
        case 2: return "\(day)T\(time)+01:00"
        default: return "\(day)T\(time).\(pick(["000", "500", "999"]))Z"
        }
    }

    /// A string that does not read as an instant but is a prefix or near-prefix of timestamps: a date, a time
    /// without seconds, without a zone, a month; compared with `updatedAt` it compares as text.
    mutating func shortBound() -> String {
        let day = pick(["2026-11-30", "2026-12-01", "2026-12-02"])
        switch below(6) {
        case 0, 1: return day
        case 2: return "\(day)T\(pick(["10:20", "09:20", "00:00", "23:59"]))"
        case 3: return "\(day)T\(pick(["10:20:30", "10:20:00"]))"
        case 4: return "\(day)T10:20:30.\(pick(["5", "500"]))"
        default: return pick(["2026-12", "2026", "2026-12-01T"])
        }
    }

    /// A value of `updatedAt`: mostly a timestamp, at times a date, text or a value of another kind.
    mutating func updatedAt() -> JSONValue? {
        switch below(8) {
        case 0: return value()
        case 1: return .string(shortBound())
        default: return .string(timestamp())
        }
    }

    mutating func item() -> JSONObject {
        var item: JSONObject = ["id": .string("i\(below(300))")]
        for field in Self.fields {
            if let value = field == "updatedAt" ? updatedAt() : value() { item[field] = value }
        }
        return item
    }

    mutating func batch() -> [StoreChange] {
        switch below(11) {
        case 0: return [.delete(table: "R", ids: (0..<(1 + below(60))).map { _ in "I\(below(300))" })]
        case 10:  // one batch that writes, deletes and writes again the same ids (slots freed and reused), at
                  // times in upserts large enough to have their index entries built aside (AddedIndexEntries)
            let sizes = (0..<2).map { _ in below(3) == 0 ? AddedIndexEntries.minimumItems + below(60) : 1 + below(20) }
            return [.upsert(table: "R", items: (0..<sizes[0]).map { _ in item() }),
                    .delete(table: "R", ids: (0..<(1 + below(20))).map { _ in "i\(below(300))" }),
                    .upsert(table: "R", items: (0..<sizes[1]).map { _ in item() })]
        case 1: return [.deleteAll(table: "R", matching: Field("d") == (value() ?? .null))]
        case 2: return [.upsert(table: "R", items: (0..<(100 + below(300))).map { _ in item() })]
        default: return [.upsert(table: "R", items: (0..<(1 + below(50))).map { _ in item() })]
        }
    }

    /// A value to compare `field` with: for `updatedAt` often an instant or a shorter text.
    mutating func operand(for field: String) -> JSONValue {
        guard field == "updatedAt", below(4) != 0 else { return value() ?? .null }
        return .string(below(2) == 0 ? timestamp() : shortBound())
    }

    mutating func condition() -> Filter {
        let name = pick(Self.fields)
        let field = Field(name)
        switch below(10) {
        case 0, 1, 2: return field == operand(for: name)
        case 3: return field < operand(for: name)
        case 4: return field >= operand(for: name)
        case 5: return field > operand(for: name)
        case 6: return field <= operand(for: name)
        case 7, 8:  // both bounds
            let (low, high) = (operand(for: name), operand(for: name))
            return (below(2) == 0 ? field > low : field >= low) && (below(2) == 0 ? field < high : field <= high)
        default: return field != operand(for: name)
        }
    }

    /// Up to four keys in one direction (at times one flipped), often naming a field again, at times ending on `id`.
    mutating func orderBy() -> [SortKey] {
        let ascending = below(2) == 0
        var keys: [SortKey] = []
        for _ in 0..<below(4) {
            let field = !keys.isEmpty && below(3) == 0 ? pick(keys).field : pick(Self.fields)
            keys.append(ascending != (below(5) == 0) ? .ascending(field) : .descending(field))
        }
        if !keys.isEmpty, below(4) == 0 { keys.append(below(2) == 0 ? .ascending("id") : .descending("id")) }
        return keys
    }

    mutating func query() -> Query {
        var filter: Filter?
        for _ in 0..<below(4) { filter = filter.map { $0 && condition() } ?? condition() }
        if below(8) == 0, let current = filter { filter = current || condition() }
        return Query(table: "R", filter: filter, orderBy: orderBy(),
                     skip: below(3) == 0 ? below(5) : nil, top: below(2) == 0 ? below(8) : nil,
                     includeTotalCount: below(2) == 0)
    }

    /// `query` with `skip` and `top` often at the edges of its `matches` matches: 0, 1, all, one more or one fewer.
    mutating func paged(_ query: Query, matches: Int) -> Query {
        var query = query
        let edges = [0, 1, matches, matches + 1, max(matches - 1, 0), below(8)]
        query.skip = below(3) == 0 ? pick(edges) : nil
        query.top = below(2) == 0 ? pick(edges) : nil
        return query
    }
}
