import Testing
@testable import OfflineSync

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
}
