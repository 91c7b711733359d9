extension Query {
    /// Runs this query over `items` with the local query rules: filter, then a total ordering by `orderBy`,
    /// then `skip` and `top`, then `select` (the listed fields plus `id`). `totalCount` counts every match.
    ///
    /// Data sources that keep items in memory use this to answer ``SyncContextDataSource/read(_:)``. With an
    /// ordering and a `top`, only the first `skip + top` items are kept while scanning (a bounded insertion sort),
    /// so a "first 50 by date" query over many items does not sort them all.
    ///
    /// A field named again in `orderBy` orders nothing: its first mention already decided every tie it could
    /// break, so `b asc, b desc, id asc` orders as `b asc, id asc`.
    public func evaluate(over items: some Sequence<JSONObject>) -> QueryResult {
        let skip = max(self.skip ?? 0, 0)
        let keep = keptMatches
        let orderBy = effectiveOrderBy
        var total = 0
        var ordered: [JSONObject]
        if let keep, !orderBy.isEmpty {
            var best = BoundedSortedItems(capacity: keep, orderBy: orderBy)
            for item in items where filter?.matches(item) ?? true {
                total += 1
                best.insert(item)
            }
            ordered = best.items
        } else {
            ordered = filter.map { filter in items.filter { filter.matches($0) } } ?? Array(items)
            total = ordered.count
            if !orderBy.isEmpty { ordered = Query.sorted(ordered, by: orderBy) }
        }
        let start = min(skip, ordered.count)
        let end = keep.map { min($0, ordered.count) } ?? ordered.count
        var page = Array(ordered[start..<max(start, end)])
        if let select {
            let fields = Set(select + ["id"])
            page = page.map { item in item.filter { fields.contains($0.key) } }
        }
        return QueryResult(items: page, totalCount: includeTotalCount ? total : nil)
    }

    /// `orderBy` without the second and later mentions of each field: the order it defines. A later mention
    /// compares only items the first mention found equal, and finds them equal too, so it never reorders anything
    /// (`b asc, b desc, id asc` orders as `b asc, id asc`). Every store, scanning or walking an index, sorts by this.
    package var effectiveOrderBy: [SortKey] {
        var keys: [SortKey] = []
        keys.reserveCapacity(orderBy.count)
        for key in orderBy where !keys.contains(where: { $0.field == key.field }) { keys.append(key) }
        return keys
    }

    /// How many matches make up the page and those it skips (`skip + top`, at most `Int.max`); nil without `top`.
    package var keptMatches: Int? {
        top.map { top in
            let (sum, overflow) = max(skip ?? 0, 0).addingReportingOverflow(max(top, 0))
            return overflow ? Int.max : sum
        }
    }

    /// `items` sorted by `keys`, stably: each item's sort values are looked up once (not at every comparison),
    /// and items that tie keep their order.
    static func sorted(_ items: [JSONObject], by keys: [SortKey]) -> [JSONObject] {
        let ascending = keys.map(\.ascending)
        let order: [Int]
        if let columns = TextSortColumns(items, keys: keys) {
            order = columns.order(ascending: ascending)
        } else {
            let width = keys.count
            var values: [JSONValue] = []
            values.reserveCapacity(items.count * width)
            for item in items {
                for key in keys { values.append(item[key.field] ?? .null) }
            }
            order = values.withUnsafeBufferPointer { values in
                stableOrder(count: items.count, ascending: ascending) { column, lhs, rhs in
                    ValueComparison.sortOrder(values[lhs * width + column], values[rhs * width + column])
                }
            }
        }
        return order.map { items[$0] }
    }

    /// The positions `0..<count` sorted stably by columns, each ascending or not as `ascending` says;
    /// `compare(column, lhs, rhs)` orders two positions' values in one column.
    static func stableOrder(count: Int, ascending: [Bool], _ compare: (Int, Int, Int) -> Int) -> [Int] {
        (0..<count).sorted { lhs, rhs in
            for column in ascending.indices {
                let comparison = compare(column, lhs, rhs)
                if comparison != 0 { return ascending[column] ? comparison < 0 : comparison > 0 }
            }
            return lhs < rhs
        }
    }

    /// Whether `lhs` sorts before `rhs` by `keys` in the total order of the local query rules.
    package static func precedes(_ lhs: JSONObject, _ rhs: JSONObject, _ keys: [SortKey]) -> Bool {
        for key in keys {
            let order = ValueComparison.sortOrder(lhs[key.field] ?? .null, rhs[key.field] ?? .null)
            if order != 0 { return key.ascending ? order < 0 : order > 0 }
        }
        return false
    }
}

/// The first `capacity` items by an ordering, kept sorted while items stream in.
private struct BoundedSortedItems {
    let capacity: Int
    let orderBy: [SortKey]
    private(set) var items: [JSONObject] = []

    init(capacity: Int, orderBy: [SortKey]) {
        self.capacity = capacity
        self.orderBy = orderBy
    }

    mutating func insert(_ item: JSONObject) {
        guard capacity > 0 else { return }
        if items.count == capacity {
            // Not better than the current last: skip (ties keep the earlier item, as a stable sort would).
            guard let last = items.last, Query.precedes(item, last, orderBy) else { return }
            items.removeLast()
        }
        var low = 0, high = items.count
        while low < high {
            let middle = (low + high) / 2
            if Query.precedes(item, items[middle], orderBy) { high = middle } else { low = middle + 1 }
        }
        items.insert(item, at: low)
    }
}
