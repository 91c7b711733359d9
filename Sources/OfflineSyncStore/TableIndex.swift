import OfflineSyncCore
/// One secondary index held in memory: an entry per item of the table, sorted by the indexed fields' values in the
/// total order of the local query rules (a missing field is null), then by the item's slot.
///
/// An entry is the ``OrderedKey`` encoding of the item's indexed values followed by its slot (4 bytes). The entries
/// are kept in two sorted lists (``SortedIndexEntries``): the main one, and a run of the entries added since the run
/// was last folded into it. A batch of changes takes its old entries out of either list and merges its new ones into
/// the run, which stays small enough to merge into cheaply; the run is folded into the main list once it reaches a
/// share of it (``runShare``), so that each entry moves a bounded number of times as the index grows, instead of the
/// whole list moving at every batch. Reads walk one sorted list: they see a folded index (``fold()``, which the
/// stores call before reading, or ``folded()``), and ``forEachSlot(_:)`` walks both lists merged.
struct TableIndex: Sendable {
    /// Where an entry lies in a byte buffer.
    struct Entry: Sendable {
        var offset: Int
        var length: Int
    }

    let definition: IndexDefinition
    /// Every entry but those of `run`.
    private var main = SortedIndexEntries()
    /// The entries added since the last fold, none of them in `main`.
    private var run = SortedIndexEntries()

    /// The run is folded into the main list once it holds this many entries and at least `1 / runShare` of the
    /// main list's.
    static let runMinimum = 1_024
    /// See ``runMinimum``.
    static let runShare = 8

    /// An empty index of `definition`.
    init(definition: IndexDefinition) {
        self.definition = definition
    }

    /// How many entries the index holds.
    var count: Int { main.count + run.count }

    /// Whether every entry is in the main list, where reads find them.
    var isFolded: Bool { run.count == 0 }

    /// Merges the run into the main list.
    mutating func fold() {
        guard run.count > 0 else { return }
        run.bytes.withUnsafeBytes { main.insert(run.entries, of: $0) }
        run = SortedIndexEntries()
    }

    /// This index with its run merged into the main list: itself when it is folded already.
    func folded() -> TableIndex {
        var copy = self
        copy.fold()
        return copy
    }

    /// The entry of `item` stored in `slot`: its indexed values, then the slot.
    func entry(for item: JSONObject, slot: Int32) -> [UInt8] {
        var entry: [UInt8] = []
        Self.appendEntry(of: item, fields: definition.fields, slot: slot, to: &entry)
        return entry
    }

    /// Appends the entry of `item` stored in `slot` for an index on `fields`: the item's values (a missing field is
    /// null), then the slot.
    static func appendEntry(of item: JSONObject, fields: [String], slot: Int32, to bytes: inout [UInt8]) {
        for field in fields { OrderedKey.append(item[field] ?? .null, to: &bytes) }
        OrderedKey.append(slot: slot, to: &bytes)
    }

    /// Calls `body` with the slot of every entry, in order, walking the main list and the run merged.
    func forEachSlot<Failure: Error>(_ body: (Int32) throws(Failure) -> Void) throws(Failure) {
        var mainPosition = 0, runPosition = 0
        while mainPosition < main.count || runPosition < run.count {
            let takesRun: Bool
            if runPosition == run.count {
                takesRun = false
            } else if mainPosition == main.count {
                takesRun = true
            } else {
                takesRun = main.bytes.withUnsafeBytes { mainRaw in
                    run.bytes.withUnsafeBytes { runRaw in
                        Self.compare(runRaw, run.entries[runPosition], mainRaw, main.entries[mainPosition]) < 0
                    }
                }
            }
            if takesRun {
                try body(run.slot(at: runPosition))
                runPosition += 1
            } else {
                try body(main.slot(at: mainPosition))
                mainPosition += 1
            }
        }
    }

    // MARK: Reading a folded index (positions are the main list's)

    /// The slot of the entry at `position`.
    func slot(at position: Int) -> Int32 {
        assert(isFolded, "reads need a folded index")
        return main.slot(at: position)
    }

    /// Sets the bit of each slot that an entry at `positions` holds in `bits` (bit `slot % 64` of word `slot / 64`),
    /// in one pass over the entries without calling back per entry. Returns false, with the bits of the slots before
    /// it set, at the first slot `bits` has no word for.
    func markSlots(at positions: Range<Int>, in bits: inout [UInt64]) -> Bool {
        assert(isFolded, "reads need a folded index")
        return main.markSlots(at: positions, in: &bits)
    }

    /// The positions of the entries at or after `lower` and before `upper`, comparing each entry's first
    /// `bound.count` bytes with the bound (so a bound of encoded values covers every entry that starts with them).
    /// `lowerInclusive` false skips the entries that start with `lower`; `upperInclusive` true keeps those that
    /// start with `upper`. A nil bound is open.
    func positions(from lower: [UInt8]?, inclusive lowerInclusive: Bool = true,
                   to upper: [UInt8]?, inclusive upperInclusive: Bool = true) -> Range<Int> {
        assert(isFolded, "reads need a folded index")
        return main.positions(from: lower, inclusive: lowerInclusive, to: upper, inclusive: upperInclusive)
    }

    /// The encodings of the distinct values of the first field, in order, found by one search per value; nil when
    /// there are more than `limit`.
    func firstValueGroups(limit: Int) -> [[UInt8]]? {
        var groups: [[UInt8]] = []
        var position = 0
        while position < main.count {
            guard groups.count < limit else { return nil }
            let value = withEntry(at: position) { entry in Array(entry[0..<OrderedKey.length(ofValueAt: 0, in: entry)]) }
            groups.append(value)
            position = positions(from: value, to: value).upperBound
        }
        return groups
    }

    /// The indexed values of the entry at `position`, by field name; nil when one is an array or an object.
    func values(at position: Int) -> JSONObject? {
        withEntry(at: position) { entry in
            var object = JSONObject(minimumCapacity: definition.fields.count), offset = 0
            for field in definition.fields {
                guard let value = OrderedKey.scalar(at: &offset, in: entry) else { return nil }
                object[field] = value
            }
            return object
        }
    }

    /// Calls `body` with the bytes of the entry at `position`.
    func withEntry<T>(at position: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        assert(isFolded, "reads need a folded index")
        return main.withEntry(at: position, body)
    }

    /// Compares the entries at `lhs` and `rhs` without their first values: by the other fields, then the slot.
    func compareAfterFirstValue(_ lhs: Int, _ rhs: Int) -> Int {
        withEntry(at: lhs) { left in
            withEntry(at: rhs) { right in
                ValueComparison.compareBytes(UnsafeRawBufferPointer(rebasing: left[OrderedKey.length(ofValueAt: 0, in: left)...]),
                                             UnsafeRawBufferPointer(rebasing: right[OrderedKey.length(ofValueAt: 0, in: right)...]))
            }
        }
    }

    // MARK: Building and changing

    /// Makes room for `count` more entries of about `entryBytes` bytes each.
    mutating func reserveCapacity(_ count: Int, entryBytes: Int) {
        main.reserveCapacity(count, entryBytes: entryBytes)
    }

    /// Adds `entry` without keeping the order; ``sort()`` must follow before the index is read or updated.
    mutating func appendUnsorted(_ entry: [UInt8]) {
        fold()
        main.appendUnsorted(entry)
    }

    /// Adds the entry of the item in `slot` whose indexed values encode as `values`, as ``appendUnsorted(_:)``
    /// does, without building the entry apart first.
    mutating func appendUnsorted(values: UnsafeRawBufferPointer, slot: Int32) {
        fold()
        main.appendUnsorted(values: values, slot: slot)
    }

    /// Puts the entries in order, and their bytes too when they were appended far out of order.
    mutating func sort() {
        fold()
        main.sort()
    }

    /// Whether the main list's bytes lie in its buffer in entry order.
    var isLaidOutInOrder: Bool { main.isLaidOutInOrder }

    /// Removes the entries `removed` (each present exactly as stored) and adds `added`; an entry in both, one for
    /// one, is neither removed nor added (``IndexEntryBatch/cancelCommon(_:_:)``). Removed entries are taken from
    /// the run or the main list, wherever they are; added ones go to the run, which is folded into the main list
    /// once it reaches its share.
    mutating func update(removing removed: IndexEntryBatch, adding added: IndexEntryBatch) {
        var removed = removed, added = added
        if removed.count > 0, added.count > 0 { IndexEntryBatch.cancelCommon(&removed, &added) } else { added.sort() }
        if removed.count > 0 {
            var found = [Bool](repeating: false, count: removed.count)
            removed.bytes.withUnsafeBytes { raw in
                if run.count > 0 { run.remove(removed.entries, of: raw, found: &found) }
                main.remove(removed.entries, of: raw, found: &found)
            }
        }
        guard added.count > 0 else { return }
        added.bytes.withUnsafeBytes { run.insert(added.entries, of: $0) }
        if run.count >= max(Self.runMinimum, main.count / Self.runShare) { fold() }
    }

    /// Compares the bytes of entry `lhs` of buffer `lhsRaw` with those of `rhs` of `rhsRaw`.
    static func compare(_ lhsRaw: UnsafeRawBufferPointer, _ lhs: Entry, _ rhsRaw: UnsafeRawBufferPointer, _ rhs: Entry) -> Int {
        ValueComparison.compareBytes(SortedIndexEntries.view(lhsRaw, lhs), SortedIndexEntries.view(rhsRaw, rhs))
    }
}
