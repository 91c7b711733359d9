/// One secondary index held in memory: an entry per item of the table, sorted by the indexed fields' values in
/// the total order of the local query rules (``ValueComparison``; a missing field is null), then by item key.
///
/// A batch of changes is folded in by one merge (changed entries out, their new versions sorted and merged in),
/// so an `apply` of `b` items costs O(n + b log b) whatever its size.
struct TableIndex: Sendable {
    /// One item's place in the index.
    struct Entry: Sendable {
        var values: [JSONValue]
        var key: String
    }

    let definition: IndexDefinition
    private(set) var entries: [Entry] = []

    /// An index of `definition` over `table`'s items.
    init(definition: IndexDefinition, table: [String: JSONObject]) {
        self.definition = definition
        entries = table.map { entry(key: $0.key, item: $0.value) }
        entries.sort { Self.precedes($0, $1) }
    }

    /// Re-indexes the items whose keys are `changed`: `previous` holds the versions indexed now (absent: the key
    /// was not in the table), `table` the current ones (absent: deleted). Few changes are placed one by one by
    /// binary search; many are merged in one pass.
    mutating func update(changed: Set<String>, previous: [String: JSONObject], table: [String: JSONObject]) {
        guard !changed.isEmpty else { return }
        if changed.count * 4 > entries.count {
            self = TableIndex(definition: definition, table: table)
            return
        }
        if previous.count <= Self.singleStepLimit {
            for (key, item) in previous {
                let old = entry(key: key, item: item)
                let position = partition { !Self.precedes($0, old) }
                if position < entries.count && entries[position].key == key { entries.remove(at: position) }
            }
        } else {
            entries.removeAll { previous[$0.key] != nil }
        }
        var added = changed.compactMap { key in table[key].map { entry(key: key, item: $0) } }
        if added.count <= Self.singleStepLimit {
            for new in added { entries.insert(new, at: partition { !Self.precedes($0, new) }) }
            return
        }
        added.sort { Self.precedes($0, $1) }
        // Each added entry finds its place by binary search from the last one; the runs between are copied whole.
        var merged: [Entry] = []
        merged.reserveCapacity(entries.count + added.count)
        var start = 0
        for new in added {
            let position = partition(from: start) { !Self.precedes($0, new) }
            merged.append(contentsOf: entries[start..<position])
            merged.append(new)
            start = position
        }
        merged.append(contentsOf: entries[start...])
        entries = merged
    }

    /// Up to this many changes are placed one at a time rather than by a merge of the whole index.
    private static let singleStepLimit = 32

    /// The positions of the entries whose first `prefix.count` values equal `prefix` in the sort order.
    func range(prefix: [JSONValue]) -> Range<Int> {
        let lower = partition { Self.comparePrefix($0.values, prefix) >= 0 }
        let upper = partition { Self.comparePrefix($0.values, prefix) > 0 }
        return lower..<max(lower, upper)
    }

    /// The first position whose entry satisfies `isAtOrAfter` (entries are partitioned by it).
    private func partition(from start: Int = 0, _ isAtOrAfter: (Entry) -> Bool) -> Int {
        var low = start, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if isAtOrAfter(entries[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    private func entry(key: String, item: JSONObject) -> Entry {
        Entry(values: definition.fields.map { item[$0] ?? .null }, key: key)
    }

    private static func comparePrefix(_ values: [JSONValue], _ prefix: [JSONValue]) -> Int {
        for (value, bound) in zip(values, prefix) {
            let order: Int
            switch (value, bound) {  // the common kinds first, without the general total order's dispatch
            case (.bool(let a), .bool(let b)): order = a == b ? 0 : (a ? 1 : -1)
            case (.string(let a), .string(let b)): order = ValueComparison.compareStrings(a, b)
            case (.int(let a), .int(let b)): order = a == b ? 0 : (a < b ? -1 : 1)
            default: order = ValueComparison.sortOrder(value, bound)
            }
            if order != 0 { return order }
        }
        return 0
    }

    static func precedes(_ lhs: Entry, _ rhs: Entry) -> Bool {
        let order = comparePrefix(lhs.values, rhs.values)
        if order != 0 { return order < 0 }
        return ValueComparison.compareStrings(lhs.key, rhs.key) < 0
    }
}
