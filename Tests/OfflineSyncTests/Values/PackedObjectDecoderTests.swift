import Testing
import Foundation
@testable import OfflineSyncCore

/// `PackedObjectDecoder` decodes a model straight from a packed item as `JSONValueDecoder` decodes the item's
/// dictionary: the same value, or the same `DecodingError` (kind, coding path and wording).
struct PackedObjectDecoderTests {
    typealias Samples = CodingSamples

    /// `object` packed with its own keys' shape (kept as text when it has too few keys for a shape).
    private func packed(_ object: JSONObject, shape: JSONObjectShape? = nil) -> (bytes: [UInt8], shape: JSONObjectShape?) {
        let shape = shape ?? JSONObjectShape(of: object)
        var bytes: [UInt8] = []
        PackedObject.append(object, shape: shape, to: &bytes)
        return (bytes, shape)
    }

    private func packedOutcome<Value: Decodable & Equatable>(_ type: Value.Type, _ object: JSONObject, shape: JSONObjectShape? = nil,
                                                             readers: PackedObjectReaders? = nil) -> (DecodingOutcome<Value>, String) {
        let (bytes, shape) = packed(object, shape: shape)
        var text = ""
        let outcome = DecodingOutcome {
            do {
                return try bytes.withUnsafeBytes { try PackedObjectDecoder(reusing: readers).decode(Value.self, from: $0, shape: shape) }
            } catch {
                text = "\(error)"
                throw error
            }
        }
        return (outcome, text)
    }

    /// Decodes `object` packed and as a tree; expects the same value, or the same error word for word.
    private func expectSameAsTree<Value: Decodable & Equatable>(_ type: Value.Type, _ object: JSONObject, shape: JSONObjectShape? = nil,
                                                                readers: PackedObjectReaders? = nil,
                                                                sourceLocation: SourceLocation = #_sourceLocation) {
        var treeText = ""
        let tree = DecodingOutcome {
            do { return try JSONValueDecoder().decode(Value.self, from: .object(object)) } catch {
                treeText = "\(error)"
                throw error
            }
        }
        let (outcome, text) = packedOutcome(Value.self, object, shape: shape, readers: readers)
        #expect(outcome == tree, "\(JSONValue.object(object).jsonString())", sourceLocation: sourceLocation)
        #expect(text == treeText, sourceLocation: sourceLocation)
    }

    /// Encodes `value` to its item, then expects the packed item to decode as the tree does: to `value` itself unless
    /// not `exact` (a relative URL comes back absolute, a whole double in a `JSONValue` comes back an integer).
    private func expectRoundTrip<Value: Codable & Equatable>(_ value: Value, exact: Bool = true,
                                                             sourceLocation: SourceLocation = #_sourceLocation) throws {
        let object = try #require(try JSONValueEncoder().encode(value).objectValue, sourceLocation: sourceLocation)
        if exact { #expect(packedOutcome(Value.self, object).0 == .value(value), sourceLocation: sourceLocation) }
        expectSameAsTree(Value.self, object, sourceLocation: sourceLocation)
    }

    @Test func everyCodableShapeRoundTripsThroughItsPackedItem() throws {
        try expectRoundTrip(Samples.Scalars())
        try expectRoundTrip(Samples.Optionals())
        try expectRoundTrip(Samples.Optionals(set: nil, number: nil, flag: nil, ratio: nil, count: nil, date: nil, inner: nil, list: nil))
        try expectRoundTrip(Samples.Nested())
        try expectRoundTrip(Samples.Foundations(), exact: false)
        try expectRoundTrip(Samples.Renamed())
        try expectRoundTrip(Samples.Custom())
        try expectRoundTrip(Samples.Derived(title: "d", created: Date(timeIntervalSince1970: 12.25)))
        try expectRoundTrip(Samples.Collections())
        try expectRoundTrip(Samples.Trees(), exact: false)
        for (index, double) in Samples.doubles.enumerated() {
            try expectRoundTrip(Samples.Numbers(double: double, float: Samples.floats[index % Samples.floats.count],
                                                decimal: Samples.decimals[index % Samples.decimals.count]))
        }
    }

    @Test func valuesThePackedFormKeepsCompactDecodeToTheirText() throws {
        struct Record: Codable, Equatable {
            var id: String
            var lower: String
            var at: String
            var when: Date
            var version: String
            var count: Int
        }
        let record = Record(id: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", lower: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f",
                            at: "2026-11-29T09:29:49.062Z", when: Date(timeIntervalSince1970: 1_764_408_589.062),
                            version: "0a1b2c3", count: -12_345)
        try expectRoundTrip(record)
    }

    /// Run with a reader for each decode, and with one reader reused by every decode.
    @Test(arguments: [false, true])
    func wrongKindsMissingKeysAndBadValuesFailAsTheTreeDecoderFails(reusingOneReader: Bool) throws {
        let readers = reusingOneReader ? PackedObjectReaders() : nil
        let base = try #require(try JSONValueEncoder().encode(Samples.Optionals()).objectValue)
        let changes: [(String, JSONValue)] = [("set", 1), ("number", "1"), ("number", true), ("number", 1.5), ("number", 1e19),
                                              ("flag", 1), ("ratio", "x"), ("date", "2026-13-01T00:00:00Z"), ("date", 0),
                                              ("inner", []), ("inner", ["values": []]), ("inner", ["name": "n", "values": ["x"]]),
                                              ("list", [1, "x"]), ("list", ["y": 1]), ("count", .null), ("count", "7")]
        for (key, value) in changes {
            var item = base
            item[key] = value
            expectSameAsTree(Samples.Optionals.self, item, readers: readers)
        }
        let scalars = try #require(try JSONValueEncoder().encode(Samples.Scalars()).objectValue)
        for key in scalars.keys {
            for value: JSONValue in [.null, "s", true, 1.5, -1, .int(Int64.max), [1], ["a": 1]] {
                var item = scalars
                item[key] = value
                expectSameAsTree(Samples.Scalars.self, item, readers: readers)
            }
            var missing = scalars
            missing[key] = nil
            expectSameAsTree(Samples.Scalars.self, missing, readers: readers)
        }
        var custom = try #require(try JSONValueEncoder().encode(Samples.Custom()).objectValue)
        custom["position"] = ["x": 1]
        expectSameAsTree(Samples.Custom.self, custom, readers: readers)
        custom["position"] = .null
        expectSameAsTree(Samples.Custom.self, custom, readers: readers)
        custom["super"] = nil
        expectSameAsTree(Samples.Custom.self, custom, readers: readers)
    }

    @Test func aFailureNamesTheCodingPathOfTheValueAtFault() {
        struct Todo: Codable, Equatable {
            var id: String
            var count: Int
            var steps: [Step]?
        }
        struct Step: Codable, Equatable {
            var color: String
        }
        #expect(packedOutcome(Todo.self, ["id": "a", "text": "x"]).0 == .failure(kind: "keyNotFound", path: ["count"]))
        #expect(packedOutcome(Todo.self, ["id": "a", "count": .null]).0 == .failure(kind: "valueNotFound", path: ["count"]))
        #expect(packedOutcome(Todo.self, ["id": 1, "count": 1]).0 == .failure(kind: "typeMismatch", path: ["id"]))
        #expect(packedOutcome(Todo.self, ["id": "a", "count": 1, "steps": [["color": "red"], ["color": 2]]]).0
            == .failure(kind: "typeMismatch", path: ["steps", "Index 1", "color"]))
        #expect(packedOutcome(Todo.self, ["id": "a", "count": 2.5]).0 == .failure(kind: "dataCorrupted", path: ["count"]))
    }

    @Test func typesNotReadThroughAKeyedContainerDecodeAsFromTheTree() {
        let object: JSONObject = ["id": "a", "count": 2, "ratio": 1.5, "tags": ["x"]]
        expectSameAsTree(JSONValue.self, object)
        expectSameAsTree([String: JSONValue].self, object)
        expectSameAsTree([String: String].self, object)
        expectSameAsTree([String: String].self, ["a": "x", "b": "y"])
        expectSameAsTree([Int].self, object)
        expectSameAsTree(String.self, object)
        expectSameAsTree(Date.self, object)
        expectSameAsTree(Samples.Celsius.self, object)
        expectSameAsTree(Samples.Row.self, object)
        expectSameAsTree(Samples.NothingEncoded.self, object)
        expectSameAsTree(Samples.Optionals?.self, ["set": "s", "number": 1])
    }

    @Test func anItemKeptAsTextOrOfAnotherShapeDecodesAsFromTheTree() throws {
        let object = try #require(try JSONValueEncoder().encode(Samples.Renamed()).objectValue)
        expectSameAsTree(Samples.Renamed.self, object, shape: JSONObjectShape(keys: ["other", "keys"]))
        expectSameAsTree(Samples.Renamed.self, ["ID": "only"])
        let (bytes, _) = packed(object)
        #expect(DecodingOutcome { try bytes.withUnsafeBytes { try PackedObjectDecoder().decode(Samples.Renamed.self, from: $0, shape: nil) } }
            == .failure(kind: "dataCorrupted", path: []), "shaped bytes without their shape are no object")
        #expect(DecodingOutcome { try [UInt8]().withUnsafeBytes { try PackedObjectDecoder().decode(Samples.Renamed.self, from: $0, shape: nil) } }
            == .failure(kind: "dataCorrupted", path: []))
        let cut = Array(bytes.dropLast())
        #expect(DecodingOutcome { try cut.withUnsafeBytes { try PackedObjectDecoder().decode(Samples.Renamed.self, from: $0, shape: JSONObjectShape(of: object)) } }
            == .failure(kind: "dataCorrupted", path: []), "a cut packed item is no object")
    }

    /// A model of every kind of field, all optional, so that random items both fit and fail it.
    struct Random: Codable, Equatable {
        var id: String
        var text: String?
        var count: Int?
        var small: Int8?
        var ratio: Double?
        var float: Float?
        var flag: Bool?
        var due: Date?
        var tags: [String]?
        var numbers: [Int?]?
        var inner: Samples.Inner?
        var extra: JSONValue?
        var status: Samples.Status?
    }

    /// Run with a reader for each decode, and with one reader reused by every decode (whose guesses of the keys'
    /// positions, learnt from other shapes, are then often wrong).
    @Test(arguments: [false, true])
    func randomItemsDecodeAsTheTreeDecoderDecodesThem(reusingOneReader: Bool) {
        let readers = reusingOneReader ? PackedObjectReaders() : nil
        var random = SeededRandom(seed: 39)
        let keys = ["id", "text", "count", "small", "ratio", "float", "flag", "due", "tags", "numbers", "inner", "extra", "status", "other"]
        let values: [JSONValue] = [.null, true, false, 0, -1, 127, 128, .int(Int64.min), 1.5, -0.0, 1e300, 3.0, "", "s", "open",
                                   "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "2026-11-29T09:29:49.062Z", "2026-11-29T09:29:49Z",
                                   "deadbeef", "grüße", "日本語 😀", [], ["a", "b"], [1, .null, 2], [1, "x"], [:], ["name": "n", "values": [1, 2.5]],
                                   ["name": 1, "values": []], ["nested": ["deep": [true]]]]
        var decoded = 0
        for _ in 0..<3000 {
            var object: JSONObject = ["id": random.pick(["a", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "x"])]
            for _ in 0..<random.below(8) { object[random.pick(keys)] = random.pick(values) }
            let tree = DecodingOutcome { try JSONValueDecoder().decode(Random.self, from: .object(object)) }
            if case .value = tree { decoded += 1 }
            expectSameAsTree(Random.self, object, readers: readers)
        }
        #expect(decoded > 100, "some random items fit the model")
    }
}
