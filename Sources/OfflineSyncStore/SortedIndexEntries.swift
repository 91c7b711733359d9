import OfflineSyncCore
/// A sorted list of index entries (``TableIndex``'s layout): the entries' bytes in one buffer, and for each entry,
/// in order, where its bytes lie (16 bytes). Entries compare with `memcmp`, so neither a lookup nor a merge decodes
/// a value. A ``TableIndex`` holds two: all but the latest entries, and a small run of the latest.
struct SortedIndexEntries: Sendable {
    private(set) var bytes: [UInt8] = []
    private(set) var entries: [TableIndex.Entry] = []
    /// Bytes of `bytes` no entry uses any more.
    private var garbage = 0
    /// Bytes appended to `bytes` since it was last laid out in entry order.
    private var unordered = 0

    /// No entries.
    init() {}

    /// How many entries there are.
    var count: Int { entries.count }

    /// The slot of the entry at `position`.
    func slot(at position: Int) -> Int32 {
        let entry = entries[position]
        return bytes.withUnsafeBytes { OrderedKey.slot(endingAt: UnsafeRawBufferPointer(rebasing: $0[entry.offset..<(entry.offset + entry.length)])) }
    }

    /// Sets the bit of each slot that an entry at `positions` holds in `bits` (bit `slot % 64` of word `slot / 64`),
    /// in one pass over the entries without calling back per entry. Returns false, with the bits of the slots before
    /// it set, at the first slot `bits` has no word for.
    func markSlots(at positions: Range<Int>, in bits: inout [UInt64]) -> Bool {
        bytes.withUnsafeBytes { raw in
            entries.withUnsafeBufferPointer { entries in
                bits.withUnsafeMutableBufferPointer { words in
                    for entry in entries[positions] {
                        let slot = Int(OrderedKey.slot(endingAt: Self.view(raw, entry)))
                        let word = slot >> 6
                        guard slot >= 0, word < words.count else { return false }
                        words[word] |= 1 << UInt64(slot & 63)
                    }
                    return true
                }
            }
        }
    }

    /// Makes room for `count` more entries of about `entryBytes` bytes each.
    mutating func reserveCapacity(_ count: Int, entryBytes: Int) {
        entries.reserveCapacity(entries.count + count)
        bytes.reserveCapacity(bytes.count + count * entryBytes)
    }

    /// Adds `entry` without keeping the order; ``sort()`` must follow before the entries are read or updated.
    mutating func appendUnsorted(_ entry: [UInt8]) {
        entries.append(TableIndex.Entry(offset: bytes.count, length: entry.count))
        bytes.append(contentsOf: entry)
        unordered += entry.count
    }

    /// Adds the entry of the item in `slot` whose indexed values encode as `values`, as ``appendUnsorted(_:)``
    /// does, without building the entry apart first.
    mutating func appendUnsorted(values: UnsafeRawBufferPointer, slot: Int32) {
        let start = bytes.count
        bytes.append(contentsOf: values)
        OrderedKey.append(slot: slot, to: &bytes)
        entries.append(TableIndex.Entry(offset: start, length: bytes.count - start))
        unordered += bytes.count - start
    }

    /// Puts the entries in order, and their bytes too when they were appended far out of order.
    mutating func sort() {
        bytes.withUnsafeBytes { raw in
            entries.sort { TableIndex.compare(raw, $0, raw, $1) < 0 }
        }
        // Entries appended in order (a snapshot written in index order) need no rewrite.
        if isLaidOutInOrder { unordered = 0 }
        compactIfWasteful()
    }

    /// Whether the entries' bytes lie in the buffer in entry order.
    var isLaidOutInOrder: Bool {
        zip(entries, entries.dropFirst()).allSatisfy { $0.offset < $1.offset }
    }

    /// Removes those `removed` entries of `source` that are here exactly as stored and that `found` does not
    /// already mark, and marks them in `found` (one flag per entry of `removed`).
    mutating func remove(_ removed: [TableIndex.Entry], of source: UnsafeRawBufferPointer, found: inout [Bool]) {
        var positions: [Int] = []
        for (number, entry) in removed.enumerated() where !found[number] {
            let key = Self.view(source, entry)
            let position = lowerBound(key)
            if position < entries.count, compare(position, key) == 0 {
                positions.append(position)
                found[number] = true
                garbage += entry.length
            }
        }
        guard !positions.isEmpty else { return }
        remove(at: positions)
        compactIfWasteful()
    }

    /// Places `added`, entries of `source` in order and none already here, among the entries.
    mutating func insert(_ added: [TableIndex.Entry], of source: UnsafeRawBufferPointer) {
        guard !added.isEmpty else { return }
        // The new entries' bytes go to the end of the buffer, in order; then they are placed among the old ones.
        var fresh: [TableIndex.Entry] = []
        fresh.reserveCapacity(added.count)
        for entry in added {
            fresh.append(TableIndex.Entry(offset: bytes.count, length: entry.length))
            bytes.append(contentsOf: Self.view(source, entry))
            unordered += entry.length
        }
        if fresh.count <= Self.singleStepLimit {
            for entry in fresh { entries.insert(entry, at: bytes.withUnsafeBytes { lowerBound(Self.view($0, entry)) }) }
        } else {
            merge(fresh)
        }
        compactIfWasteful()
    }

    /// Removes the entries at `positions` (distinct, in any order), moving each kept entry at most once.
    private mutating func remove(at positions: [Int]) {
        if positions.count <= Self.singleStepLimit {
            for position in positions.sorted(by: >) { entries.remove(at: position) }
            return
        }
        let doomed = positions.sorted()
        guard let first = doomed.first else { return }
        var kept = first, next = 0
        for position in first..<entries.count {
            if next < doomed.count, doomed[next] == position {
                next += 1
            } else {
                entries[kept] = entries[position]
                kept += 1
            }
        }
        entries.removeLast(entries.count - kept)
    }

    /// Merges `fresh` (entries of the buffer's end, in order) into the entries where they stand: the list grows at
    /// its end, and the new entries are placed from the last one back, each finding its place by a galloping search
    /// back from the place of the one after it; the run of old entries between two places moves once. Nothing is
    /// allocated beyond the growth, and the old entries before the first new one's place never move.
    private mutating func merge(_ fresh: [TableIndex.Entry]) {
        var end = entries.count
        entries.append(contentsOf: fresh)
        var free = entries.count
        for (placed, entry) in fresh.reversed().enumerated() {
            // The old entries left are spread among the new ones left: the next place is about one share back.
            let position = gallop(entry, before: end, stride: max(1, end / (fresh.count - placed)))
            let run = end - position
            free -= run
            if run > 0 {
                entries.withUnsafeMutableBufferPointer { list in
                    guard let base = list.baseAddress else { return }
                    (base + free).update(from: base + position, count: run)
                }
            }
            free -= 1
            entries[free] = entry
            end = position
        }
    }

    /// Up to this many changes are placed one at a time rather than by a pass over all the entries.
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

    /// Calls `body` with the bytes of the entry at `position`.
    func withEntry<T>(at position: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        bytes.withUnsafeBytes { raw in body(Self.view(raw, entries[position])) }
    }

    // MARK: Comparison

    /// The first position whose entry is not below `key`.
    func lowerBound(_ key: UnsafeRawBufferPointer) -> Int {
        partition { ValueComparison.compareBytes($0, key) >= 0 }
    }

    /// The first position before `end` whose entry is not below `entry` (one of the buffer's), `end` when none is,
    /// for an entry expected about `stride` positions before `end`: probes `end - 1`, then steps back by `stride`,
    /// `2 stride`, `4 stride`, … until an entry is below it, then searches the last step, so that the comparisons
    /// stay near `end` and grow with the distance, not with the number of entries. A stride of the expected distance
    /// saves the probes that galloping from a step of 1 spends reaching it.
    private func gallop(_ entry: TableIndex.Entry, before end: Int, stride: Int = 1) -> Int {
        bytes.withUnsafeBytes { raw in
            let key = Self.view(raw, entry)
            let isAtOrAfter = { (bytes: UnsafeRawBufferPointer) in ValueComparison.compareBytes(bytes, key) >= 0 }
            var low = end, high = end, step = stride
            while low > 0, isAtOrAfter(Self.view(raw, entries[low - 1])) {
                high = low - 1
                low = max(0, high - step)
                step *= 2
            }
            return partition(in: low..<high, isAtOrAfter)
        }
    }

    private func compare(_ position: Int, _ key: UnsafeRawBufferPointer) -> Int {
        bytes.withUnsafeBytes { raw in ValueComparison.compareBytes(Self.view(raw, entries[position]), key) }
    }

    /// The first position in `range` (all entries by default) whose entry's bytes satisfy `isAtOrAfter`, or the
    /// range's end (entries are partitioned by it).
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

    /// The bytes of `entry` in `raw`.
    static func view(_ raw: UnsafeRawBufferPointer, _ entry: TableIndex.Entry) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: raw[entry.offset..<(entry.offset + entry.length)])
    }

    /// Compares the first `bound.count` bytes of `entry` with `bound`: 0 when the entry starts with it.
    private static func comparePrefix(_ entry: UnsafeRawBufferPointer, _ bound: [UInt8]) -> Int {
        bound.withUnsafeBytes { bound in
            ValueComparison.compareBytes(UnsafeRawBufferPointer(rebasing: entry[0..<min(entry.count, bound.count)]), bound)
        }
    }

    /// Rewrites the byte buffer in entry order, without garbage, once most of it is garbage or a third of it was
    /// appended since the last rewrite. Entries near each other in order then lie near each other in memory, so a
    /// merge's galloping search and a read's walk touch a few cache lines instead of one per entry; rewriting when
    /// the appended part reaches a third of the buffer copies each byte a bounded number of times as the list grows.
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
