import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// A large batch's upserts are prepared on two cores before its commit: the payload, the packed items and the first
/// problem reported must be exactly those of one pass over the items.
struct PreparedUpsertsTests {
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
        #expect(PreparedUpserts.split(PreparedUpserts.minimumItems - 1, indexes: indexes) == PreparedUpserts.minimumItems - 1)
        let split = PreparedUpserts.split(1_000, indexes: indexes)
        #expect(split > 0 && split < 1_000)
        #expect(split == [500, 700, 900][[0, 1, 3].firstIndex(of: indexes) ?? 0])
    }

    /// `batch` prepared with `indexes` indexes on "T" (whose items have `shape`), then written with what was prepared.
    private static func writePrepared(_ batch: [StoreChange], shape: JSONObjectShape, indexes: Int,
                                      into payload: inout [UInt8], packing packed: inout PackedItems) async throws(DataSourceError) {
        let fields = Array(repeating: ["n"], count: indexes)
        let upserts = PreparedUpserts.upserts(of: batch, shapes: { $0 == "T" ? shape : nil },
                                              indexFields: indexes == 0 ? [:] : [1: fields])
        let prepared = await PreparedUpserts.prepare(upserts)
        try JournalPayload.write(batch, into: &payload, shapes: { $0 == "T" ? shape : nil }, prepared: prepared.encoded,
                                 packing: &packed)
    }

    @Test(arguments: [0, 1, 3])
    func aPreparedUpsertIsWrittenAndPackedAsOnePassWouldBe(indexes: Int) async throws {
        let shape = try #require(JSONObjectShape(keys: ["id", "n", "text"]))
        let upserted = Self.items(1_000)
        let batch: [StoreChange] = [.delete(table: "T", ids: ["gone"]), .upsert(table: "T", items: upserted), .upsert(table: "U", items: [["id": "u"]])]
        var payload: [UInt8] = [], onePass: [UInt8] = []
        var packed = PackedItems(), packedInOnePass = PackedItems()
        try await Self.writePrepared(batch, shape: shape, indexes: indexes, into: &payload, packing: &packed)
        try JournalPayload.write(batch, into: &onePass, shapes: { $0 == "T" ? shape : nil }, packing: &packedInOnePass)
        #expect(payload == onePass)
        #expect(JournalPayload.changes(from: try JSONValue(parsing: payload)) == batch)
        #expect(packed.items.count == 1_001)
        for (ordinal, item) in upserted.enumerated() {
            let decoded = packed.withItem(at: ordinal, shape: shape) { bytes in bytes.flatMap { PackedObject.decode($0, shape: shape) } }
            #expect(decoded == (ordinal % 7 == 3 ? nil : item), "item \(ordinal)")
        }
    }

    @Test func theFirstProblemOfAPreparedUpsertIsReportedWhicheverPartHoldsIt() async throws {
        let shape = try #require(JSONObjectShape(keys: ["id", "n", "text"]))
        for bad in [[10], [900], [10, 900], [499, 500]] {
            var upserted = Self.items(1_000)
            for position in bad { upserted[position]["n"] = .double(.nan) }
            let batch: [StoreChange] = [.delete(table: "T", ids: ["gone"]), .upsert(table: "T", items: upserted)]
            var expected: DataSourceError?
            do { try StoreChange.validate(batch) } catch { expected = error }
            var payload: [UInt8] = []
            var packed = PackedItems()
            var thrown: DataSourceError?
            do {
                try await Self.writePrepared(batch, shape: shape, indexes: 1, into: &payload, packing: &packed)
            } catch {
                thrown = error
            }
            #expect(expected != nil && thrown == expected, "bad items \(bad): \(String(describing: thrown))")
            #expect("\(String(describing: thrown))".contains("item-\(bad[0]) "), "bad items \(bad)")
        }
    }

    @Test func anUpsertPreparedForAShapeTheTableNoLongerHasIsEncodedAgain() async throws {
        let shape = try #require(JSONObjectShape(keys: ["id", "n", "text"]))
        let batch: [StoreChange] = [.upsert(table: "T", items: Self.items(1_000))]
        var prepared = await PreparedUpserts.prepare(PreparedUpserts.upserts(of: batch, shapes: { _ in shape }, indexFields: [:]))
        #expect(prepared.encoded[0] != nil)
        prepared.dropStaleEncodings(current: { _ in shape })
        #expect(prepared.encoded[0] != nil)
        prepared.dropStaleEncodings(current: { _ in JSONObjectShape(keys: ["id", "n", "text"]) })
        #expect(prepared.encoded.isEmpty)
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
