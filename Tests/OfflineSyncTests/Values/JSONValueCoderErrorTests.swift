import Testing
import Foundation
@testable import OfflineSyncCore

/// What `JSONValueDecoder` and `JSONValueEncoder` throw: `DecodingError`s and `EncodingError`s with the coding path of
/// the value at fault.
struct JSONValueCoderErrorTests {
    struct Todo: Codable, Equatable {
        var id: String
        var count: Int
        var small: Int8?
        var dueAt: Date?
        var details: Details?
        var steps: [Details]?
    }

    struct Details: Codable, Equatable {
        var color: String
    }

    private func decodingFailure(_ item: JSONObject) -> DecodingOutcome<Todo> {
        DecodingOutcome { try JSONValueDecoder().decode(Todo.self, from: .object(item)) }
    }

    @Test func aMissingKeyIsKeyNotFoundAtItsPath() {
        #expect(decodingFailure(["id": "a"]) == .failure(kind: "keyNotFound", path: ["count"]))
        #expect(decodingFailure(["id": "a", "count": 1, "details": [:]]) == .failure(kind: "keyNotFound", path: ["details", "color"]))
    }

    @Test func aValueOfTheWrongKindIsTypeMismatchAtItsPath() {
        #expect(decodingFailure(["id": 1, "count": 1]) == .failure(kind: "typeMismatch", path: ["id"]))
        #expect(decodingFailure(["id": "a", "count": true]) == .failure(kind: "typeMismatch", path: ["count"]), "Bool is not a number")
        #expect(decodingFailure(["id": "a", "count": 1, "steps": [["color": "red"], ["color": 2]]])
            == .failure(kind: "typeMismatch", path: ["steps", "Index 1", "color"]))
        #expect(decodingFailure(["id": "a", "count": 1, "details": ["red"]]) == .failure(kind: "typeMismatch", path: ["details"]))
    }

    @Test func nullForANonOptionalIsValueNotFoundAtItsPath() {
        #expect(decodingFailure(["id": "a", "count": .null]) == .failure(kind: "valueNotFound", path: ["count"]))
    }

    @Test func aNumberWithAFractionIntoAnIntegerIsDataCorruptedAtItsPath() {
        #expect(decodingFailure(["id": "a", "count": 1.5]) == .failure(kind: "dataCorrupted", path: ["count"]))
        #expect(decodingFailure(["id": "a", "count": 2.0]) == .value(Todo(id: "a", count: 2)), "a whole double is an integer")
    }

    @Test func aNumberBeyondTheIntegerTypeIsDataCorruptedAtItsPath() {
        #expect(decodingFailure(["id": "a", "count": 1, "small": 128]) == .failure(kind: "dataCorrupted", path: ["small"]))
        #expect(decodingFailure(["id": "a", "count": 1e19]) == .failure(kind: "dataCorrupted", path: ["count"]))
        #expect(DecodingOutcome { try JSONValueDecoder().decode(UInt.self, from: -1) } == .failure(kind: "dataCorrupted", path: []))
        #expect(DecodingOutcome { try JSONValueDecoder().decode(Float.self, from: 1e300) } == .failure(kind: "dataCorrupted", path: []))
        #expect(DecodingOutcome { try JSONValueDecoder().decode(Float.self, from: 1e-300) } == .failure(kind: "dataCorrupted", path: []))
    }

    /// JSONDecoder reports these with an empty coding path; the tree decoder names the field.
    @Test func jsonTextReportsTheSameNumbersAsDataCorruptedToo() {
        let outcome = DecodingOutcome { try JSONTextCoding.decode(Todo.self, from: ["id": "a", "count": 1.5]) }
        guard case .failure(let kind, _) = outcome else { Issue.record("\(outcome)"); return }
        #expect(kind == "dataCorrupted")
    }

    @Test func aStringThatIsNoISO8601DateTimeIsDataCorruptedAtItsPath() throws {
        #expect(decodingFailure(["id": "a", "count": 1, "dueAt": "tomorrow"]) == .failure(kind: "dataCorrupted", path: ["dueAt"]))
        do {
            _ = try JSONValueDecoder().decode(Todo.self, from: ["id": "a", "count": 1, "dueAt": "2026-02-30T00:00:00Z"])
            Issue.record("decoded an impossible date")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.debugDescription == "\"2026-02-30T00:00:00Z\" is not an ISO 8601 date-time.")
        }
        let decoded = try JSONValueDecoder().decode(Todo.self, from: ["id": "a", "count": 1, "dueAt": "2026-01-01T02:00:00.5+02:00"])
        #expect(decoded.dueAt == Date(timeIntervalSince1970: 1_767_225_600.5), "any ISO 8601 date-time is read")
    }

    @Test func anUnkeyedContainerAtItsEndIsValueNotFoundAtTheNextIndex() {
        let outcome = DecodingOutcome { try JSONValueDecoder().decode(CodingSamples.Row.self, from: ["a"]) }
        #expect(outcome == .failure(kind: "valueNotFound", path: ["Index 1"]))
    }

    @Test func nanAndInfinityAreEncodingErrorsAtTheirPath() {
        struct Reading: Encodable {
            var values: [Double]
        }
        do {
            _ = try JSONValueEncoder().encode(Reading(values: [1, .infinity]))
            Issue.record("encoded infinity")
        } catch EncodingError.invalidValue(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["values", "Index 1"])
            #expect(context.debugDescription == "Unable to encode Double.infinity directly in JSON.")
        } catch {
            Issue.record("\(error)")
        }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(["x": JSONValue.double(.nan)]) }
    }

    /// The text `JSONEncoder` writes for such a number does not read back into an item either.
    @Test func anIntegerBeyondInt64IsAnEncodingError() {
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(["big": UInt64(Int64.max) + 1]) }
        #expect(throws: (any Error).self) { try JSONTextCoding.encode(["big": UInt64(Int64.max) + 1]) }
        #expect((try? JSONValueEncoder().encode(["big": UInt64(Int64.max)])) == ["big": .int(.max)])
    }

    @Test func aValueThatEncodesNothingAtTheTopIsAnEncodingError() {
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(CodingSamples.NothingEncoded()) }
        #expect(throws: EncodingError.self) { try JSONTextCoding.encode(CodingSamples.NothingEncoded()) }
    }
}
