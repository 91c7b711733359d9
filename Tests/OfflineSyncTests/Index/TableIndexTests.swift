import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// An index's entries must stay in order through any sequence of changes, whether placed one at a time or merged,
/// and through the rewrites that lay its bytes out in entry order again.
struct TableIndexTests {
    @Test func entriesStayInOrderThroughMergesAndTheRewritesThatLayTheirBytesOut() {
        var random = SeededRandom(seed: 3)
        var index = TableIndex(definition: IndexDefinition(table: "T", fields: ["v", "w"]))
        var items: [Int32: JSONObject] = [:]
        var sawScattered = false, sawRewrite = false
        for round in 0..<40 {
            // Every fourth round changes a few items (placed one at a time), the others hundreds (merged).
            let changes = round % 4 == 3 ? 5 : 600
            var slots = Set<Int32>()
            while slots.count < changes { slots.insert(Int32(random.below(4_000))) }
            var removed = IndexEntryBatch(), added = IndexEntryBatch()
            for slot in slots {
                if let old = items[slot] { removed.append(old, fields: ["v", "w"], slot: slot) }
                if random.below(5) == 0 {
                    items[slot] = nil
                } else {
                    let item: JSONObject = ["v": .string(String(repeating: "k", count: random.below(24)) + "\(random.below(50))"),
                                            "w": random.below(3) == 0 ? .null : .int(Int64(random.below(100)))]
                    items[slot] = item
                    added.append(item, fields: ["v", "w"], slot: slot)
                }
            }
            let wasScattered = !index.isLaidOutInOrder
            index.update(removing: removed, adding: added)
            sawScattered = sawScattered || !index.isLaidOutInOrder
            sawRewrite = sawRewrite || (wasScattered && index.isLaidOutInOrder)

            let expected = items.map { slot, item in (slot, index.entry(for: item, slot: slot)) }
                .sorted { lhs, rhs in lhs.1.lexicographicallyPrecedes(rhs.1) }
                .map(\.0)
            #expect(orderedSlots(index) == expected, "round \(round)")
        }
        #expect(sawScattered, "merges must leave bytes out of order before a rewrite")
        #expect(sawRewrite, "the appended bytes must have passed the threshold that lays them out again")
    }

    @Test func mergedEntriesFindTheirPlacesWhereverTheyCluster() {
        // A merge guesses each new entry's place from how the entries are spread; batches that all go before,
        // after, or into one gap of the old entries, or that repeat one value, must land in order all the same.
        var index = TableIndex(definition: IndexDefinition(table: "T", fields: ["v"]))
        var items: [Int32: JSONObject] = [:]
        var next: Int32 = 0
        func add(_ values: [Double]) {
            var added = IndexEntryBatch()
            for value in values {
                let item: JSONObject = ["v": .double(value)]
                items[next] = item
                added.append(item, fields: ["v"], slot: next)
                next += 1
            }
            index.update(removing: IndexEntryBatch(), adding: added)
            let expected = items.map { slot, item in (slot, index.entry(for: item, slot: slot)) }
                .sorted { lhs, rhs in lhs.1.lexicographicallyPrecedes(rhs.1) }
                .map(\.0)
            #expect(orderedSlots(index) == expected)
        }
        add((0..<3_000).map { Double($0 * 2) })
        add((0..<500).map { Double(-1_000 + $0) })
        add((0..<500).map { Double(100_000 + $0) })
        add((0..<500).map { 1_001 + Double($0) / 1_000 })
        add([Double](repeating: 77, count: 400))
        add((0..<700).map { Double(($0 * 7_919) % 6_000) + 0.5 })
    }

    /// The slots of the index's entries, in order: the main list and the run walked merged, and the same once folded.
    private func orderedSlots(_ index: TableIndex) -> [Int32] {
        var merged: [Int32] = []
        index.forEachSlot { merged.append($0) }
        let folded = index.folded()
        #expect((0..<folded.count).map { folded.slot(at: $0) } == merged)
        return merged
    }

    @Test func aSlotChangedSeveralTimesInOneBatchEndsWithOnlyItsLastEntry() {
        var index = TableIndex(definition: IndexDefinition(table: "T", fields: ["v"]))
        let a: JSONObject = ["v": 1], b: JSONObject = ["v": 2], c: JSONObject = ["v": 3], other: JSONObject = ["v": 2]
        var seed = IndexEntryBatch()
        seed.append(a, fields: ["v"], slot: 5)
        seed.append(other, fields: ["v"], slot: 9)
        index.update(removing: IndexEntryBatch(), adding: seed)
        #expect(orderedSlots(index) == [5, 9])

        // Slot 5: a → b → c, and slot 9 deleted then written again as it was: as one batch lists them.
        var removed = IndexEntryBatch(), added = IndexEntryBatch()
        for (slot, before, after) in [(Int32(5), a, b), (5, b, c), (9, other, nil), (9, nil, other)] as [(Int32, JSONObject?, JSONObject?)] {
            if let before { removed.append(before, fields: ["v"], slot: slot) }
            if let after { added.append(after, fields: ["v"], slot: slot) }
        }
        index.update(removing: removed, adding: added)
        #expect(orderedSlots(index) == [9, 5], "slot 9 keeps its entry (v 2), slot 5 has only v 3")
        var two: [UInt8] = []
        OrderedKey.append(.int(2), to: &two)
        index.fold()
        #expect(index.positions(from: two, to: two).count == 1)
    }

    @Test func markingSlotsSetsTheBitOfEachEntryInTheRangeAndRefusesASlotBeyondTheBitmap() {
        var index = TableIndex(definition: IndexDefinition(table: "T", fields: ["v"]))
        var batch = IndexEntryBatch()
        for (slot, value) in [(Int32(0), 3), (63, 1), (64, 2), (130, 2), (7, 9)] { batch.append(["v": .int(Int64(value))], fields: ["v"], slot: slot) }
        index.update(removing: IndexEntryBatch(), adding: batch)
        #expect(orderedSlots(index) == [63, 64, 130, 0, 7])
        index.fold()

        var bits = [UInt64](repeating: 0, count: 3)
        #expect(index.markSlots(at: 1..<4, in: &bits))
        #expect(bits == [1, 1, 1 << 2], "slots 64, 130 and 0 only")
        var short = [UInt64](repeating: 0, count: 2)
        #expect(!index.markSlots(at: 0..<3, in: &short), "slot 130 has no word in a two-word bitmap")
    }
}
