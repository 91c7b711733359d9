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

    /// A stored item the model cannot decode at all (another field of the wrong type), for a model type never probed
    /// before: nothing can be learned about a field, so every field the model did not encode is kept, not cleared.
    @Test func whenTheStoredItemDoesNotDecodeEveryOtherFieldIsKept() throws {
        struct NeverProbed: Codable, Sendable {
            var id: String
            var text: String
            var remark: String?
        }
        let stored: JSONObject = ["id": "a", "text": 12, "remark": "r"]
        let item = try completed(NeverProbed(id: "a", text: "t"), over: stored)
        #expect(item["remark"] == "r")
    }

    /// What a probe settles is kept per model type: a field the model ignores stays undeclared, and a field it reads
    /// stays declared, whatever a later stored item holds; a probe that learned nothing (the item did not decode) is
    /// asked again.
    @Test func settledFieldsAreKeptPerModelTypeAndUnsettledOnesProbedAgain() throws {
        struct Probed: Codable, Sendable {
            var id: String
            var count: Int
            var label: String?
        }
        let fields = ModelFields(Probed.self, coding: ModelCoding(table: "T"))
        #expect(!fields.declares("colour", ["id": "a", "count": "not a number"]), "learned nothing: false, not kept")
        #expect(fields.declares("label", ["id": "a", "count": 1]))
        #expect(!fields.declares("colour", ["id": "a", "count": 1]))
        #expect(fields.declares("label", ["id": "a", "count": "not a number"]), "kept: no decoding needed")
    }
}
