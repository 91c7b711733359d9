import Testing
import Foundation
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// What a typed write takes from the stored item: system properties, the fields its model does not declare, and `null`
/// for a declared field it left `nil`.
struct ModelFieldsTests {
    struct TodoV1: Codable, Sendable {
        var id: String
        var text: String
    }

    struct Details: Codable, Sendable {
        var color: String
    }

    struct Renamed: Codable, Sendable {
        var id: String
        var title: String
        var note: String?
        var details: Details?
        var dueAt: Date?

        enum CodingKeys: String, CodingKey {
            case id, title = "text", note = "remark", details, dueAt = "due_at"
        }
    }

    private func completed<Model: Codable & Sendable>(_ model: Model, over stored: JSONObject) throws -> JSONObject {
        let coding = ModelCoding(table: "T")
        return ModelFields(Model.self, coding: coding).completing(try coding.item(from: model), from: stored)
    }

    @Test func systemPropertiesAndUndeclaredFieldsAreKept() throws {
        let stored: JSONObject = ["id": "a", "text": "old", "priority": 5, "tags": ["x"], "version": "v3", "updatedAt": "2026-01-01T00:00:00.000Z"]
        let item = try completed(TodoV1(id: "a", text: "new"), over: stored)
        #expect(item == ["id": "a", "text": "new", "priority": 5, "tags": ["x"], "version": "v3", "updatedAt": "2026-01-01T00:00:00.000Z"])
    }

    @Test func declaredFieldsLeftNilAreSetToNullThroughTheirCodingKeys() throws {
        let stored: JSONObject = ["id": "a", "text": "old", "remark": "keep?", "details": ["color": "red"],
                                  "due_at": "2026-01-01T00:00:00.000Z", "extra": 1]
        let item = try completed(Renamed(id: "a", title: "new"), over: stored)
        #expect(item == ["id": "a", "text": "new", "remark": .null, "details": .null, "due_at": .null, "extra": 1])
    }

    @Test func aNestedModelIsWrittenAsTheModelEncodesIt() throws {
        let stored: JSONObject = ["id": "a", "text": "old", "details": ["color": "red", "shade": "dark"]]
        let item = try completed(Renamed(id: "a", title: "t", details: Details(color: "blue")), over: stored)
        #expect(item["details"] == ["color": "blue"])
    }

    @Test func aFieldAlreadyNullStaysNullAndAnAbsentOneStaysAbsent() throws {
        let item = try completed(Renamed(id: "a", title: "t"), over: ["id": "a", "text": "t", "remark": .null])
        #expect(item == ["id": "a", "text": "t", "remark": .null])
    }

    /// A stored item the model cannot decode (a field of an old shape): what the model encoded still decodes, so a
    /// field it declares and left `nil` is cleared, and a field it does not know is kept.
    @Test func aStoredItemTheModelCannotDecodeStillHasItsClearedFieldCleared() throws {
        struct Model: Codable, Sendable {
            var id: String
            var text: String
            var remark: String?
        }
        let stored: JSONObject = ["id": "a", "text": 12, "remark": "r", "extra": 1]
        let item = try completed(Model(id: "a", text: "t"), over: stored)
        #expect(item == ["id": "a", "text": "t", "remark": .null, "extra": 1])
    }

    /// A stored field of an old shape that the model decodes before the probed one (`remark` was a number) fails the
    /// completed item's decoding there; the encoded item alone still shows that the model reads `details`.
    @Test func aStoredFieldOfAnOldShapeDoesNotHideAnotherClear() throws {
        let stored: JSONObject = ["id": "a", "text": "old", "remark": 5, "details": ["color": "red"], "extra": 1]
        let item = try completed(Renamed(id: "a", title: "new"), over: stored)
        #expect(item == ["id": "a", "text": "new", "remark": .null, "details": .null, "extra": 1])
    }

    /// Whether the model reads a field is asked of each item, never remembered for its type: a model that reads
    /// `label` only when `count` is positive declares it for one item and not for the next, in either order.
    @Test func whetherAModelReadsAFieldIsAnsweredPerItem() throws {
        struct Conditional: Codable, Sendable {
            var id: String
            var count: Int
            var label: String?

            enum CodingKeys: String, CodingKey { case id, count, label }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                id = try container.decode(String.self, forKey: .id)
                count = try container.decode(Int.self, forKey: .count)
                label = count > 0 ? try container.decodeIfPresent(String.self, forKey: .label) : nil
            }
        }
        let fields = ModelFields(Conditional.self, coding: ModelCoding(table: "T"))
        #expect(fields.declares("label", ["id": "a", "count": 1]) == true)
        #expect(fields.declares("label", ["id": "a", "count": 0]) == false)
        #expect(fields.declares("label", ["id": "a", "count": 1]) == true)
        #expect(fields.declares("label", ["id": "a", "count": "not a number"]) == nil, "learned nothing")
    }
}
