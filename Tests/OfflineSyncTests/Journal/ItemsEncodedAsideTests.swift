import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// A large upsert's second part is encoded on another core: the payload, the packed items and the first problem
/// reported must be exactly those of one pass over the items.
struct ItemsEncodedAsideTests {
    private static func items(_ count: Int, shapedLike shape: Bool = true) -> [JSONObject] {
        (0..<count).map { number in
            var item: JSONObject = ["id": .string("item-\(number)"), "n": .int(Int64(number)), "text": "line\nbreak ü"]
            // Every seventh item has a key of its own: written from its values, left for the tables to pack.
            if !shape || number % 7 == 3 { item["extra"] = .bool(true) }
            return item
        }
    }

    @Test(arguments: [0, 1, 3])
    func aLargeUpsertSplitsLessAsideTheMoreIndexesItsTableKeeps(indexes: Int) {
        #expect(ItemsEncodedAside.split(ItemsEncodedAside.minimumItems - 1, indexes: indexes) == ItemsEncodedAside.minimumItems - 1)
        let split = ItemsEncodedAside.split(1_000, indexes: indexes)
        #expect(split > 0 && split < 1_000)
        #expect(split == [500, 700, 900][[0, 1, 3].firstIndex(of: indexes) ?? 0])
    }

    @Test(arguments: [0, 1, 3])
    func aSplitUpsertIsWrittenAndPackedAsOnePassWouldBe(indexes: Int) throws {
        let shape = try #require(JSONObjectShape(keys: ["id", "n", "text"]))
        let upserted = Self.items(1_000)
        let batch: [StoreChange] = [.delete(table: "T", ids: ["gone"]), .upsert(table: "T", items: upserted), .upsert(table: "U", items: [["id": "u"]])]
        var payload: [UInt8] = []
        var packed = PackedItems()
        try JournalPayload.write(batch, into: &payload, shapes: { $0 == "T" ? shape : nil }, indexCounts: { _ in indexes }, packing: &packed)
        #expect(JournalPayload.changes(from: try JSONValue(parsing: payload)) == batch)
        #expect(packed.items.count == 1_001)
        for (ordinal, item) in upserted.enumerated() {
            let decoded = packed.withItem(at: ordinal, shape: shape) { bytes in bytes.flatMap { PackedObject.decode($0, shape: shape) } }
            #expect(decoded == (ordinal % 7 == 3 ? nil : item), "item \(ordinal)")
        }
    }

    @Test func theFirstProblemOfASplitUpsertIsReportedWhicheverPartHoldsIt() throws {
        let shape = try #require(JSONObjectShape(keys: ["id", "n", "text"]))
        for bad in [[10], [900], [10, 900], [499, 500]] {
            var upserted = Self.items(1_000)
            for position in bad { upserted[position]["n"] = .double(.nan) }
            let batch: [StoreChange] = [.upsert(table: "T", items: upserted)]
            var expected: DataSourceError?
            do { try StoreChange.validate(batch) } catch { expected = error }
            var payload: [UInt8] = []
            var packed = PackedItems()
            var thrown: DataSourceError?
            do {
                try JournalPayload.write(batch, into: &payload, shapes: { _ in shape }, indexCounts: { _ in 0 }, packing: &packed)
            } catch {
                thrown = error
            }
            #expect(expected != nil && thrown == expected, "bad items \(bad): \(String(describing: thrown))")
            #expect("\(String(describing: thrown))".contains("item-\(bad[0]) "), "bad items \(bad)")
        }
    }

    @Test func aStoreRefusesALargeUpsertWhoseSecondPartHoldsABadItemAndKeepsWhatItHeld() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath) { $0.indexes = [IndexDefinition(table: "T", fields: ["n"])] }
        try await store.apply([.upsert(table: "T", items: Self.items(1_000))])
        var replaced = Self.items(1_000).map { item in item.merging(["n": .int(-1)]) { $1 } }
        replaced[950]["id"] = .int(5)
        await #expect(throws: DataSourceError.self) { try await store.apply([.upsert(table: "T", items: replaced)]) }
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath)
        let held = try await reopened.read(Query(table: "T", orderBy: [.ascending("n")])).items
        #expect(held == Self.items(1_000))
        try await reopened.close()
    }
}
