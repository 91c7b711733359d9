package import OfflineSyncCore
/// A query answered from an index that is not in memory: a sorted list of entries whose items are read one at a
/// time when the walk needs them (a snapshot's lookup file, while the store has not loaded the snapshot yet).
///
/// The walk is the part of one index that holds every match: equality conditions on a prefix of its fields, then the
/// range conditions on the next field (``IndexConditions``), walked in `orderBy`'s order, or the index's own when the
/// query has none. Each item read is tested against the whole filter, so the bounds only need to hold every match.
/// Items that tie in `orderBy` come in the index's order, as they may in any plan (an answer is the same up to ties).
/// A query no walk gives the order of, or one that asks for a total count, is not answered here.
package struct PersistedIndexQuery: Sendable {
    /// The position of the walked index among those given.
    package let index: Int
    private let bounds: EntryBounds?
    private let descending: Bool
    private let query: Query
    private let fields: [String]

    /// The walk that answers `query` over the indexes `definitions`, the one that fixes the most fields; nil when
    /// none gives `orderBy`'s order, or the query asks for a total count.
    package init?(_ query: Query, definitions: [IndexDefinition]) {
        guard !query.includeTotalCount else { return nil }
        let conditions = IndexConditions(query.filter)
        let orderBy = query.effectiveOrderBy
        var best: (index: Int, score: Int, bounds: EntryBounds?)?
        for (position, definition) in definitions.enumerated() {
            var prefix: [UInt8] = [], fixed = 0
            while fixed < definition.fields.count, let equality = conditions.equalities[definition.fields[fixed]] {
                OrderedKey.append(equality.value, to: &prefix)
                fixed += 1
            }
            let rest = definition.fields[fixed...]
            if !orderBy.isEmpty {
                guard orderBy.count <= rest.count, zip(orderBy, rest).allSatisfy({ $0.field == $1 }),
                      orderBy.allSatisfy({ $0.ascending == orderBy[0].ascending }) else { continue }
            }
            let range = rest.first.flatMap { conditions.rangeBounds(on: $0) }
            let score = fixed * 2 + (range == nil ? 0 : 1)
            if best.map({ score > $0.score }) ?? true { best = (position, score, EntryBounds(after: prefix, range)) }
        }
        guard let best else { return nil }
        index = best.index
        bounds = best.bounds
        descending = orderBy.first.map { !$0.ascending } ?? false
        self.query = query
        fields = definitions[best.index].fields
    }

    /// The answer, walking an index of `count` entries whose item at each position `item` reads; nil when the walk
    /// would read more than `budget` items (a scan of the loaded tables is then the better way).
    package func answer<Failure: Error>(count: Int, budget: Int,
                                        item: (Int) throws(Failure) -> JSONObject) throws(Failure) -> QueryResult? {
        var reads = 0
        func key(at position: Int) throws(Failure) -> [UInt8] {
            reads += 1
            let found = try item(position)
            var key: [UInt8] = []
            for field in fields { OrderedKey.append(found[field] ?? .null, to: &key) }
            return key
        }
        var positions = 0..<count
        if let bounds {
            let start = try partition(count) { (position) throws(Failure) in
                Self.comparePrefix(try key(at: position), bounds.lower) >= (bounds.lowerInclusive ? 0 : 1)
            }
            let end = try partition(count) { (position) throws(Failure) in
                Self.comparePrefix(try key(at: position), bounds.upper) >= (bounds.upperInclusive ? 1 : 0)
            }
            positions = start..<max(start, end)
        }
        let skip = max(query.skip ?? 0, 0)
        let keep = query.keptMatches
        // Without a page size every entry in the bounds is read: no need to start when they are too many.
        if keep == nil, reads + positions.count > budget { return nil }
        var page: [JSONObject] = [], seen = 0
        for step in 0..<positions.count {
            if let keep, seen >= keep { break }
            guard reads < budget else { return nil }
            reads += 1
            let found = try item(descending ? positions.upperBound - 1 - step : positions.lowerBound + step)
            guard query.filter?.matches(found) ?? true else { continue }
            seen += 1
            if seen > skip { page.append(found) }
        }
        if let select = query.select {
            let kept = Set(select + ["id"])
            page = page.map { item in item.filter { kept.contains($0.key) } }
        }
        return QueryResult(items: page)
    }

    /// The first position in `0..<count` at which `isAtOrAfter` holds (it holds from some position on).
    private func partition<Failure: Error>(_ count: Int, _ isAtOrAfter: (Int) throws(Failure) -> Bool) throws(Failure) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if try isAtOrAfter(middle) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// Compares the first bytes of `entry`, as many as `bound` has, with `bound`.
    private static func comparePrefix(_ entry: [UInt8], _ bound: [UInt8]) -> Int {
        entry.withUnsafeBytes { entry in
            bound.withUnsafeBytes { bound in
                ValueComparison.compareBytes(UnsafeRawBufferPointer(rebasing: entry[0..<min(entry.count, bound.count)]), bound)
            }
        }
    }
}
