import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// An index keeps its latest entries in a run beside the main list and folds the run in once it reaches its share:
/// reads, removals and snapshots must see one index whatever is still in the run.
struct TableIndexRunTests {
    private static let fields = ["v", "w"]

    private static func item(_ slot: Int32, salt: Int = 0) -> JSONObject {
        ["v": .int(Int64((Int(slot) * 7 + salt) % 97)), "w": slot % 3 == 0 ? .null : .string("s\(slot % 11)")]
    }

    private static func batch(_ items: [(Int32, JSONObject)]) -> IndexEntryBatch {
        var batch = IndexEntryBatch()
        for (slot, item) in items { batch.append(item, fields: fields, slot: slot) }
        return batch
    }

    /// The slots of `items` in the order of their entries.
    private static func expectedOrder(_ items: [Int32: JSONObject], _ index: TableIndex) -> [Int32] {
        items.map { slot, item in (slot, index.entry(for: item, slot: slot)) }
            .sorted { $0.1.lexicographicallyPrecedes($1.1) }
            .map(\.0)
    }

    private static func mergedSlots(_ index: TableIndex) -> [Int32] {
        var slots: [Int32] = []
        index.forEachSlot { slots.append($0) }
        return slots
    }

    /// An index whose first batch added the items in `slots`, and those items by slot.
    private static func index(holding slots: Range<Int32>) -> (TableIndex, [Int32: JSONObject]) {
        var index = TableIndex(definition: IndexDefinition(table: "T", fields: fields))
        let added = slots.map { ($0, item($0)) }
        index.update(removing: IndexEntryBatch(), adding: batch(added))
        return (index, Dictionary(uniqueKeysWithValues: added))
    }

    @Test func theRunFoldsIntoTheMainListOnceItReachesItsShare() {
        var (index, items) = Self.index(holding: 0..<10_000)
        #expect(index.isFolded, "a first batch above the run's minimum goes straight to the main list")

        // 10,000 in the main list: the run folds at 1,250 entries, on the seventh batch of 200.
        let share = max(TableIndex.runMinimum, 10_000 / TableIndex.runShare)
        var next: Int32 = 10_000
        for round in 1...7 {
            let added = (next..<(next + 200)).map { ($0, Self.item($0)) }
            next += 200
            for (slot, item) in added { items[slot] = item }
            index.update(removing: IndexEntryBatch(), adding: Self.batch(added))
            #expect(index.isFolded == (round * 200 >= share), "round \(round)")
            #expect(index.count == items.count)
            #expect(Self.mergedSlots(index) == Self.expectedOrder(items, index), "round \(round)")
        }
    }

    @Test func removalsAndUpdatesFindEntriesInTheRunAndInTheMainList() {
        var (index, items) = Self.index(holding: 0..<2_000)
        let recent = (Int32(2_000)..<2_100).map { ($0, Self.item($0)) }
        for (slot, item) in recent { items[slot] = item }
        index.update(removing: IndexEntryBatch(), adding: Self.batch(recent))
        #expect(!index.isFolded)

        // Deletes and updates of entries in both lists, in one batch.
        var removed: [(Int32, JSONObject)] = [], added: [(Int32, JSONObject)] = []
        for slot: Int32 in [3, 500, 1_999, 2_000, 2_050, 2_099] {
            removed.append((slot, items[slot] ?? [:]))
            items[slot] = nil
        }
        for slot: Int32 in [10, 1_000, 2_010, 2_060] {
            removed.append((slot, items[slot] ?? [:]))
            let updated = Self.item(slot, salt: 5)
            items[slot] = updated
            added.append((slot, updated))
        }
        index.update(removing: Self.batch(removed), adding: Self.batch(added))
        #expect(!index.isFolded)
        #expect(index.count == items.count)
        #expect(Self.mergedSlots(index) == Self.expectedOrder(items, index))
        let folded = index.folded()
        #expect(folded.isFolded && !index.isFolded, "folding a copy leaves the index as it was")
        #expect((0..<folded.count).map { folded.slot(at: $0) } == Self.expectedOrder(items, index))
    }

    @Test func readsAndSnapshotsSeeTheEntriesStillInTheRun() throws {
        let definition = IndexDefinition(table: "R", fields: ["a", "b"])
        var plain = TableSet(), indexed = TableSet()
        try indexed.defineIndexes([definition])
        func item(_ number: Int, salt: Int = 0) -> JSONObject {
            ["id": .string("i\(number)"), "a": .int(Int64((number + salt) % 13)), "b": .string("b\((number * 31 + salt) % 17)")]
        }
        func apply(_ changes: [StoreChange]) {
            plain.apply(changes)
            indexed.apply(changes)
        }
        func expectSameAnswers() throws {
            let queries = [
                Query(table: "R", filter: Field("a") == 4, orderBy: [.descending("b")], top: 20, includeTotalCount: true),
                Query(table: "R", filter: Field("a") >= 11, orderBy: [.ascending("a"), .ascending("b")], skip: 3),
                Query(table: "R", orderBy: [.ascending("b")], top: 40),
                Query(table: "R", filter: Field("b") == "b3", includeTotalCount: true),
            ]
            for query in queries { try IndexDifferentialTests.expectSameAnswer(query, plain, indexed) }
        }
        apply([.upsert(table: "R", items: (0..<3_000).map { item($0) })])
        apply([.upsert(table: "R", items: (3_000..<3_300).map { item($0) })])
        #expect(indexed.indexes["R"]?.first?.isFolded == false, "300 entries stay in the run")
        try expectSameAnswers()

        // Change and delete items whose entries are in the run and in the main list.
        apply([.upsert(table: "R", items: [item(3_005, salt: 2), item(5, salt: 2)]),
               .delete(table: "R", ids: ["i3010", "i7"])])
        try expectSameAnswers()

        // A snapshot writes the items in the index's order, the run merged in.
        var order: [String] = []
        indexed.forEachItemText(table: "R") { _, text in
            var line = [UInt8](repeating: 0, count: text.lengthBound)
            let length = line.withUnsafeMutableBufferPointer { text.write(to: $0) } ?? 0
            let parsed = line.withUnsafeBufferPointer { try? JSONReader.parse(UnsafeBufferPointer(rebasing: $0[..<length])) }
            guard case .object(let object)? = parsed, case .string(let id)? = object["id"] else { return }
            order.append(id)
        }
        indexed.foldIndexes(of: "R")
        #expect(indexed.indexes["R"]?.first?.isFolded == true)
        let index = try #require(indexed.indexes["R"]?.first)
        let table = try #require(indexed.tables["R"])
        let expected = (0..<index.count).compactMap { table.decode(index.slot(at: $0))?["id"]?.stringValue }
        #expect(order == expected)
        #expect(order.count == 3_298)
        try expectSameAnswers()
    }

    @Test func storesAnswerAsScansWhileRunsFillAndFold() async throws {
        var random = SeededRandom(seed: 21)
        let plain = InMemoryDataSource(), indexed = InMemoryDataSource(indexes: IndexDifferentialTests.indexes)
        func item() -> JSONObject {
            var item = random.item()
            item["id"] = .string("n\(random.below(6_000))")
            return item
        }
        for round in 0..<14 {
            // Large batches fold the runs on their own; small ones leave them for the reads to fold.
            let size = round % 3 == 0 ? 1_000 + random.below(1_500) : 1 + random.below(400)
            var batch: [StoreChange] = [.upsert(table: "R", items: (0..<size).map { _ in item() })]
            if round % 4 == 1 { batch.append(.delete(table: "R", ids: (0..<200).map { _ in "n\(random.below(6_000))" })) }
            try await plain.apply(batch)
            try await indexed.apply(batch)
            for _ in 0..<(round % 2 == 0 ? 10 : 0) {
                let query = random.query()
                try IndexDifferentialTests.expectSame(query, try await plain.read(query), try await indexed.read(query))
            }
        }
    }
}
