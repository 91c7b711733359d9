import OfflineSyncCore
/// The index entries one batch of changes removes from an index or adds to it, built into one byte buffer, so that
/// sorting and merging them moves 16-byte references and compares bytes where they lie.
struct IndexEntryBatch: Sendable {
    /// The entries' bytes, one after another.
    private(set) var bytes: [UInt8] = []
    /// Where each entry lies in `bytes`: in the order they were appended, or in entry order after ``sort()``.
    private(set) var entries: [TableIndex.Entry] = []
    /// Whether `entries` is known to be in entry order (an empty batch is), so that ``sort()`` has nothing to do.
    private(set) var isSorted = true

    /// An empty batch.
    init() {}

    /// How many entries the batch holds.
    var count: Int { entries.count }

    /// Appends the entry of `item` stored in `slot` for an index on `fields` (``TableIndex/appendEntry(of:fields:slot:to:)``).
    mutating func append(_ item: JSONObject, fields: [String], slot: Int32) {
        let start = bytes.count
        TableIndex.appendEntry(of: item, fields: fields, slot: slot, to: &bytes)
        entries.append(TableIndex.Entry(offset: start, length: bytes.count - start))
        isSorted = entries.count == 1
    }

    /// Drops the entry appended last.
    mutating func removeLast() {
        bytes.removeLast(entries.removeLast().length)
    }

    /// Whether the entries appended last to this batch and to `other` have the same bytes.
    func lastMatches(lastOf other: IndexEntryBatch) -> Bool {
        guard let mine = entries.last, let theirs = other.entries.last else { return false }
        return bytes.withUnsafeBytes { raw in
            other.bytes.withUnsafeBytes { TableIndex.compare(raw, mine, $0, theirs) == 0 }
        }
    }

    /// Puts the entries in order of their bytes.
    mutating func sort() {
        guard !isSorted else { return }
        bytes.withUnsafeBytes { raw in entries.sort { TableIndex.compare(raw, $0, raw, $1) < 0 } }
        isSorted = true
    }

    /// Drops the entries found in both batches, one for one, and leaves both sorted: an entry that a batch added and
    /// then removed again, or removed and then added back, leaves the index as it was.
    static func cancelCommon(_ first: inout IndexEntryBatch, _ second: inout IndexEntryBatch) {
        first.sort()
        second.sort()
        var keptFirst: [TableIndex.Entry] = [], keptSecond: [TableIndex.Entry] = []
        var i = 0, j = 0
        first.bytes.withUnsafeBytes { a in
            second.bytes.withUnsafeBytes { b in
                while i < first.entries.count, j < second.entries.count {
                    let order = TableIndex.compare(a, first.entries[i], b, second.entries[j])
                    if order < 0 {
                        keptFirst.append(first.entries[i])
                        i += 1
                    } else if order > 0 {
                        keptSecond.append(second.entries[j])
                        j += 1
                    } else {
                        i += 1
                        j += 1
                    }
                }
            }
        }
        first.entries = keptFirst + first.entries[i...]
        second.entries = keptSecond + second.entries[j...]
    }

    /// Appends the entries of `other`.
    mutating func append(contentsOf other: IndexEntryBatch) {
        let shift = bytes.count
        isSorted = other.count == 0 ? isSorted : count == 0 && other.isSorted
        bytes.append(contentsOf: other.bytes)
        entries.append(contentsOf: other.entries.lazy.map { TableIndex.Entry(offset: $0.offset + shift, length: $0.length) })
    }

    /// This batch, sorted, with each entry's trailing number `p` (a position, in place of a slot) replaced by the
    /// slot `slots[p]`; an entry whose slot is nil is left out. Entries of equal values were in order of position,
    /// so sorting again moves only those, and there is nothing to sort when the slots rise with the positions (new
    /// items of a bulk import take the slots after the table's last).
    func replacingPositions(with slots: [Int32?]) -> IndexEntryBatch {
        var result = IndexEntryBatch()
        result.bytes = bytes
        var kept: [TableIndex.Entry] = []
        kept.reserveCapacity(entries.count)
        result.bytes.withUnsafeMutableBytes { raw in
            for entry in entries {
                let own = UnsafeMutableRawBufferPointer(rebasing: raw[entry.offset..<(entry.offset + entry.length)])
                guard let slot = slots[Int(OrderedKey.slot(endingAt: UnsafeRawBufferPointer(own)))] else { continue }
                OrderedKey.write(slot: slot, endingAt: own)
                kept.append(entry)
            }
        }
        result.entries = kept
        var previous = Int32.min
        result.isSorted = isSorted && slots.allSatisfy { slot in
            guard let slot else { return true }
            defer { previous = slot }
            return slot > previous
        }
        result.sort()
        return result
    }
}
