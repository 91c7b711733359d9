/// One secondary index held in memory: an entry per item of the table, sorted by the indexed fields' values in the
/// total order of the local query rules (a missing field is null), then by the item's slot.
///
/// An entry is the ``OrderedKey`` encoding of the item's indexed values followed by its slot (4 bytes), kept in one
/// byte buffer; the sorted list holds each entry's offset and length (16 bytes). Entries compare with `memcmp`, so
/// neither a lookup nor a merge decodes a value. A batch of changes is folded in by one merge (changed entries out,
/// their new versions sorted and merged in), so an `apply` of `b` items costs O(n + b log b) whatever its size.
struct TableIndex: Sendable {
    private struct Entry: Sendable {
        var offset: Int
        var length: Int
    }

    let definition: IndexDefinition
    private var bytes: [UInt8] = []
    private var entries: [Entry] = []
    /// Bytes of `bytes` no entry uses any more.
    private var garbage = 0
    /// Bytes appended to `bytes` since it was last laid out in entry order.
    private var unordered = 0

    /// An empty index of `definition`.
    init(definition: IndexDefinition) {
        self.definition = definition
    }

    /// How many entries the index holds.
    var count: Int { entries.count }

    /// The entry of `item` stored in `slot`: its indexed values, then the slot.
    func entry(for item: JSONObject, slot: Int32) -> [UInt8] {
        var key: [UInt8] = []
        for field in definition.fields { OrderedKey.append(item[field] ?? .null, to: &key) }
        OrderedKey.append(slot: slot, to: &key)
        return key
    }

    /// The slot of the entry at `position`.
    func slot(at position: Int) -> Int32 {
        let entry = entries[position]
        return bytes.withUnsafeBytes { OrderedKey.slot(endingAt: UnsafeRawBufferPointer(rebasing: $0[entry.offset..<(entry.offset + entry.length)])) }
    }

    /// Makes room for `count` more entries of about `entryBytes` bytes each.
    mutating func reserveCapacity(_ count: Int, entryBytes: Int) {
        entries.reserveCapacity(entries.count + count)
        bytes.reserveCapacity(bytes.count + count * entryBytes)
    }

    /// Adds `entry` without keeping the order; ``sort()`` must follow before the index is read or updated.
    mutating func appendUnsorted(_ entry: [UInt8]) {
        entries.append(Entry(offset: bytes.count, length: entry.count))
        bytes.append(contentsOf: entry)
        unordered += entry.count
    }

    /// Adds the entry of the item in `slot` whose indexed values encode as `values`, as ``appendUnsorted(_:)``
    /// does, without building the entry apart first.
    mutating func appendUnsorted(values: [UInt8], slot: Int32) {
        let start = bytes.count
        bytes.append(contentsOf: values)
        OrderedKey.append(slot: slot, to: &bytes)
        entries.append(Entry(offset: start, length: bytes.count - start))
        unordered += bytes.count - start
    }

    /// Puts the entries in order, and their bytes too when they were appended far out of order.
    mutating func sort() {
        bytes.withUnsafeBytes { raw in
            entries.sort { Self.compare(raw, $0, raw, $1) < 0 }
        }
        // Entries appended in order (a snapshot written in index order) need no rewrite.
        if isLaidOutInOrder { unordered = 0 }
        compactIfWasteful()
    }

    /// Whether the entries' bytes lie in the buffer in entry order.
    var isLaidOutInOrder: Bool {
        zip(entries, entries.dropFirst()).allSatisfy { $0.offset < $1.offset }
    }

    /// Removes the entries `removed` (each present exactly as stored) and adds `added`.
    mutating func update(removing removed: [[UInt8]], adding added: [[UInt8]]) {
        if !removed.isEmpty {
            var positions: [Int] = []
            positions.reserveCapacity(removed.count)
            for entry in removed {
                let position = lowerBound(entry)
                if position < entries.count, compare(position, entry) == 0 {
                    positions.append(position)
                    garbage += entries[position].length
                }
            }
            if positions.count <= Self.singleStepLimit {
                for position in positions.sorted(by: >) { entries.remove(at: position) }
            } else {
                let doomed = Set(positions)
                var kept: [Entry] = []
                kept.reserveCapacity(entries.count - doomed.count)
                for (position, entry) in entries.enumerated() where !doomed.contains(position) { kept.append(entry) }
                entries = kept
            }
        }
        guard !added.isEmpty else { return compactIfWasteful() }
        let sorted = added.sorted { lhs, rhs in
            lhs.withUnsafeBytes { a in rhs.withUnsafeBytes { b in ValueComparison.compareBytes(a, b) < 0 } }
        }
        if sorted.count <= Self.singleStepLimit {
            for entry in sorted {
                let position = lowerBound(entry)
                entries.insert(Entry(offset: bytes.count, length: entry.count), at: position)
                bytes.append(contentsOf: entry)
                unordered += entry.count
            }
            return compactIfWasteful()
        }
        // Each added entry finds its place by a galloping search from the last one's (the probes stay near it); the
        // runs between are copied whole.
        var merged: [Entry] = []
        merged.reserveCapacity(entries.count + sorted.count)
        var start = 0
        for entry in sorted {
            let position = gallop(entry, from: start)
            merged.append(contentsOf: entries[start..<position])
            merged.append(Entry(offset: bytes.count, length: entry.count))
            bytes.append(contentsOf: entry)
            unordered += entry.count
            start = position
        }
        merged.append(contentsOf: entries[start...])
        entries = merged
        compactIfWasteful()
    }

    /// Up to this many changes are placed one at a time rather than by a pass over the whole index.
    private static let singleStepLimit = 32

    /// The positions of the entries at or after `lower` and before `upper`, comparing each entry's first
    /// `bound.count` bytes with the bound (so a bound of encoded values covers every entry that starts with them).
    /// `lowerInclusive` false skips the entries that start with `lower`; `upperInclusive` true keeps those that
    /// start with `upper`. A nil bound is open.
    func positions(from lower: [UInt8]?, inclusive lowerInclusive: Bool = true,
                   to upper: [UInt8]?, inclusive upperInclusive: Bool = true) -> Range<Int> {
        let start = lower.map { bound in partition { Self.comparePrefix($0, bound) >= (lowerInclusive ? 0 : 1) } } ?? 0
        let end = upper.map { bound in partition { Self.comparePrefix($0, bound) >= (upperInclusive ? 1 : 0) } } ?? entries.count
        return start..<max(start, end)
    }

    // MARK: Comparison

    /// The first position whose entry is not below `entry`.
    private func lowerBound(_ entry: [UInt8]) -> Int {
        entry.withUnsafeBytes { key in partition { ValueComparison.compareBytes($0, key) >= 0 } }
    }

    /// The first position from `start` whose entry is not below `entry`, for an entry expected near `start`: probes
    /// `start`, `start + 1`, `start + 2`, `start + 4`, … until one is not below it, then searches the last gap, so
    /// that the comparisons stay near `start` and grow with the distance, not with the index.
    private func gallop(_ entry: [UInt8], from start: Int) -> Int {
        entry.withUnsafeBytes { key in
            let isAtOrAfter = { (bytes: UnsafeRawBufferPointer) in ValueComparison.compareBytes(bytes, key) >= 0 }
            var low = start, high = start, step = 1
            bytes.withUnsafeBytes { raw in
                while high < entries.count, !isAtOrAfter(Self.view(raw, entries[high])) {
                    low = high + 1
                    high = start + step
                    step *= 2
                }
            }
            return partition(in: low..<min(high, entries.count), isAtOrAfter)
        }
    }

    private func compare(_ position: Int, _ entry: [UInt8]) -> Int {
        bytes.withUnsafeBytes { raw in entry.withUnsafeBytes { ValueComparison.compareBytes(Self.view(raw, entries[position]), $0) } }
    }

    /// The first position in `range` (all of the index by default) whose entry's bytes satisfy `isAtOrAfter`, or
    /// the range's end (entries are partitioned by it).
    private func partition(in range: Range<Int>? = nil, _ isAtOrAfter: (UnsafeRawBufferPointer) -> Bool) -> Int {
        bytes.withUnsafeBytes { raw in
            var low = range?.lowerBound ?? 0, high = range?.upperBound ?? entries.count
            while low < high {
                let middle = (low + high) / 2
                if isAtOrAfter(Self.view(raw, entries[middle])) { high = middle } else { low = middle + 1 }
            }
            return low
        }
    }

    private static func view(_ raw: UnsafeRawBufferPointer, _ entry: Entry) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: raw[entry.offset..<(entry.offset + entry.length)])
    }

    private static func compare(_ lhsRaw: UnsafeRawBufferPointer, _ lhs: Entry, _ rhsRaw: UnsafeRawBufferPointer, _ rhs: Entry) -> Int {
        ValueComparison.compareBytes(view(lhsRaw, lhs), view(rhsRaw, rhs))
    }

    /// Compares the first `bound.count` bytes of `entry` with `bound`: 0 when the entry starts with it.
    private static func comparePrefix(_ entry: UnsafeRawBufferPointer, _ bound: [UInt8]) -> Int {
        bound.withUnsafeBytes { bound in
            let order = ValueComparison.compareBytes(UnsafeRawBufferPointer(rebasing: entry[0..<min(entry.count, bound.count)]), bound)
            return order
        }
    }

    /// Rewrites the byte buffer in entry order, without garbage, once most of it is garbage or a third of it was
    /// appended since the last rewrite. Entries near each other in order then lie near each other in memory, so a
    /// merge's galloping search and a read's walk touch a few cache lines instead of one per entry; rewriting when
    /// the appended part reaches a third of the buffer copies each byte a bounded number of times as the index grows.
    private mutating func compactIfWasteful() {
        let isWasteful = garbage > 1 << 16 && garbage * 2 > bytes.count
        let isScattered = unordered > 1 << 16 && unordered * 3 > bytes.count
        guard isWasteful || isScattered else { return }
        var fresh: [UInt8] = []
        fresh.reserveCapacity(bytes.count - garbage)
        bytes.withUnsafeBytes { raw in
            for position in entries.indices {
                let start = fresh.count
                fresh.append(contentsOf: Self.view(raw, entries[position]))
                entries[position].offset = start
            }
        }
        bytes = fresh
        garbage = 0
        unordered = 0
    }
}
