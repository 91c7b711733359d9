import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// The journal checks a batch while writing it: the writer must write what `JSONWriter` writes and refuse exactly
/// what `StoreChange.validate` refuses, with the same error.
struct StorableItemWriterTests {
    private static func deep(_ levels: Int) -> JSONValue {
        (1..<levels).reduce(JSONValue.array([])) { inner, level in level % 2 == 0 ? .array([inner]) : .object(["x": inner]) }
    }

    @Test func writesStorableItemsAsTheJSONWriterDoes() throws {
        let items: [JSONObject] = [
            ["id": "a", "text": "line\nbreak \"quoted\" ü", "n": 3, "d": 2.5, "flag": true, "none": .null],
            ["id": "B", "list": [1, "two", ["three": 3.0]], "nested": ["k": ["deep": [.null]]]],
            ["id": "c", "edge": Self.deep(StoreChange.maximumItemDepth - 1)],
        ]
        for item in items {
            var written: [UInt8] = []
            try StorableItemWriter().write(item, table: "T", into: &written)
            var expected: [UInt8] = []
            JSONWriter().write(item, into: &expected)
            #expect(written == expected)
        }
    }

    @Test func refusesWhatValidationRefusesWithTheSameError() {
        let items: [JSONObject] = [
            ["text": "no id"],
            ["id": 7],
            ["id": ""],
            ["id": "nan", "d": .double(.nan)],
            ["id": "inf", "list": [1, .double(-.infinity)]],
            ["id": "deep", "edge": Self.deep(StoreChange.maximumItemDepth)],
            ["id": "deeper", "edge": Self.deep(StoreChange.maximumItemDepth + 3)],
        ]
        for item in items {
            var expected: DataSourceError?
            do { try StoreChange.validate([.upsert(table: "T", items: [item])]) } catch { expected = error }
            var written: [UInt8] = []
            var thrown: DataSourceError?
            do { try StorableItemWriter().write(item, table: "T", into: &written) } catch { thrown = error }
            #expect(expected != nil, "\(item)")
            #expect(thrown == expected, "\(item)")
        }
    }

    @Test func aJournalPayloadNamesTheFirstProblemOfTheBatchAsValidationDoes() {
        let batches: [[StoreChange]] = [
            [.upsert(table: "T", items: [["id": "ok"]]), .upsert(table: "bad name!", items: [["id": "x"]])],
            [.delete(table: "T", ids: ["fine", ""]), .upsert(table: "T", items: [["id": "n", "d": .double(.nan)]])],
            [.upsert(table: "T", items: [["id": "n", "d": .double(.infinity)], ["text": "no id"]])],
        ]
        for batch in batches {
            var expected: DataSourceError?
            do { try StoreChange.validate(batch) } catch { expected = error }
            var payload: [UInt8] = []
            var thrown: DataSourceError?
            do { try JournalPayload.write(batch, into: &payload) } catch { thrown = error }
            #expect(expected != nil)
            #expect(thrown == expected)
        }
    }

    @Test func anItemOfTheShapeIsPackedOnceForItsTextAndTheTables() throws {
        let shape = try #require(JSONObjectShape(keys: ["id", "text", "n", "d", "flag", "none", "list"]))
        let item: JSONObject = ["id": "a", "text": "line\nbreak \"quoted\" ü", "n": -3, "d": 2.5, "flag": true, "none": .null,
                                "list": [1, ["k": 2.0]]]
        var text: [UInt8] = [], packed: [UInt8] = []
        #expect(try StorableItemWriter().writePacked(item, table: "T", shape: shape, into: &text, packing: &packed))
        #expect(try JSONValue(parsing: text) == .object(item))
        #expect(packed.withUnsafeBytes { PackedObject.decode($0, shape: shape) } == item)
        var other = item
        other["extra"] = 1
        text = []
        packed = []
        #expect(try !StorableItemWriter().writePacked(other, table: "T", shape: shape, into: &text, packing: &packed))
        #expect(text.isEmpty && packed.isEmpty)
    }

    @Test func anItemOfTheShapeIsRefusedAsValidationRefusesIt() throws {
        let items: [JSONObject] = [
            ["id": 7, "d": 1],
            ["id": "nan", "d": .double(.nan)],
            ["id": "inf", "d": [1, .double(-.infinity)]],
            ["id": "deep", "d": Self.deep(StoreChange.maximumItemDepth)],
        ]
        let shape = try #require(JSONObjectShape(keys: ["id", "d"]))
        for item in items {
            var expected: DataSourceError?
            do { try StoreChange.validate([.upsert(table: "T", items: [item])]) } catch { expected = error }
            var text: [UInt8] = [], packed: [UInt8] = []
            var thrown: DataSourceError?
            // As the journal writes an item: packed when it can be, else written from its values.
            do {
                if try !StorableItemWriter().writePacked(item, table: "T", shape: shape, into: &text, packing: &packed) {
                    try StorableItemWriter().write(item, table: "T", into: &text)
                }
            } catch {
                thrown = error
            }
            #expect(expected != nil && thrown == expected, "\(item)")
            #expect(packed.isEmpty, "\(item)")
        }
    }

    @Test func theTablesKeepItemsPackedWithTheirShapeAndPackTheOthers() throws {
        var tables = TableSet()
        tables.apply([.upsert(table: "T", items: [["id": "first", "n": 1]])])
        let batch: [StoreChange] = [
            .upsert(table: "T", items: [["id": "a", "n": 2], ["id": "b", "m": 3]]),
            .deleteAll(table: "T", matching: nil),
            // Packed with the shape the table had, which the clear dropped: packed again from its values.
            .upsert(table: "T", items: [["id": "c", "n": 4]]),
        ]
        var payload: [UInt8] = []
        var packed = PackedItems()
        try JournalPayload.write(batch, into: &payload, shapes: { tables.shape(table: $0) }, packing: &packed)
        #expect(packed.items.map { $0 != nil } == [true, false, true])
        #expect(JournalPayload.changes(from: try JSONValue(parsing: payload)) == batch)
        var notRecording: BatchReversal?
        tables.apply(Array(batch[..<1]), packed: packed, recording: &notRecording)
        #expect(tables.item(table: "T", id: "a") == ["id": "a", "n": 2])
        #expect(tables.item(table: "T", id: "b") == ["id": "b", "m": 3])
        tables = TableSet()
        tables.apply([.upsert(table: "T", items: [["id": "first", "n": 1]])])
        tables.apply(batch, packed: packed, recording: &notRecording)
        #expect(tables.items(table: "T") == [["id": "c", "n": 4]])
        #expect(tables.item(table: "T", id: "c") == ["id": "c", "n": 4])
    }
}
