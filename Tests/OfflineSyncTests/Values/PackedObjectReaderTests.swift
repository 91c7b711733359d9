import Testing
import Foundation
@testable import OfflineSyncCore

/// `PackedObjectDecoder` with a reader kept across decodes (`PackedObjectReaders`, as the stores keep one): the guesses
/// it keeps of where each key is never change what a model decodes to, and a model that keeps its decoder or its
/// container sees nothing of a later decode.
struct PackedObjectReaderTests {
    /// `object` packed with `shape` (its own keys' when nil).
    private func packed(_ object: JSONObject, shape: JSONObjectShape? = nil) throws -> (bytes: [UInt8], shape: JSONObjectShape) {
        let shape = try #require(shape ?? JSONObjectShape(of: object))
        var bytes: [UInt8] = []
        PackedObject.append(object, shape: shape, to: &bytes)
        return (bytes, shape)
    }

    private func decode<Value: Decodable>(_ type: Value.Type, _ object: JSONObject, shape: JSONObjectShape? = nil,
                                          readers: PackedObjectReaders?) throws -> Value {
        let (bytes, shape) = try packed(object, shape: shape)
        return try bytes.withUnsafeBytes { try PackedObjectDecoder(reusing: readers).decode(Value.self, from: $0, shape: shape) }
    }

    private func expectSameAsTree<Value: Decodable & Equatable>(_ type: Value.Type, _ object: JSONObject, shape: JSONObjectShape? = nil,
                                                                readers: PackedObjectReaders?,
                                                                sourceLocation: SourceLocation = #_sourceLocation) throws {
        let tree = DecodingOutcome { try JSONValueDecoder().decode(Value.self, from: .object(object)) }
        let packed = DecodingOutcome { try decode(Value.self, object, shape: shape, readers: readers) }
        #expect(packed == tree, sourceLocation: sourceLocation)
    }

    /// Asks for `first` and `second` in an order that its `flip` member decides.
    struct Flipping: Decodable, Equatable {
        enum Keys: String, CodingKey { case flip, first, second, third }
        var values: [String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            let order: [Keys] = try container.decode(Bool.self, forKey: .flip) ? [.third, .second, .first] : [.first, .second, .third]
            values = try order.map { try container.decode(String.self, forKey: $0) }
        }
    }

    @Test func aModelThatAsksForItsKeysInChangingOrdersDecodesAsFromTheTree() throws {
        let readers = PackedObjectReaders()
        let shape = try #require(JSONObjectShape(keys: ["second", "third", "flip", "first"]))
        for round in 0..<6 {
            let object: JSONObject = ["flip": .bool(round % 3 == 0), "first": .string("a\(round)"), "second": "b", "third": "c"]
            try expectSameAsTree(Flipping.self, object, shape: shape, readers: readers)
        }
        // A shape made anew (perhaps where the last one lay) with the keys in other places.
        for keys in [["first", "second", "third", "flip"], ["flip", "third", "first", "second"]] {
            let shape = try #require(JSONObjectShape(keys: keys))
            try expectSameAsTree(Flipping.self, ["flip": false, "first": "x", "second": "y", "third": "z"], shape: shape, readers: readers)
        }
    }

    /// Keeps its decoder and its keyed container, and reads nothing else.
    final class Keeper: Decodable {
        enum Keys: String, CodingKey { case text, count }
        let decoder: any Decoder
        let container: KeyedDecodingContainer<Keys>
        let text: String

        init(from decoder: any Decoder) throws {
            self.decoder = decoder
            container = try decoder.container(keyedBy: Keys.self)
            text = try container.decode(String.self, forKey: .text)
        }
    }

    struct Plain: Decodable, Equatable {
        var text: String
        var count: Int
    }

    @Test(arguments: [false, true])
    func aModelThatKeepsItsDecoderSeesNothingOfALaterDecode(reusingOneReader: Bool) throws {
        let readers = reusingOneReader ? PackedObjectReaders() : nil
        let shape = try #require(JSONObjectShape(keys: ["text", "count"]))
        let keeper = try decode(Keeper.self, ["text": "first", "count": 1], shape: shape, readers: readers)
        #expect(keeper.text == "first")
        let later = try decode(Plain.self, ["text": "second", "count": 2], shape: shape, readers: readers)
        #expect(later == Plain(text: "second", count: 2))
        #expect(throws: DecodingError.self) { try keeper.container.decode(String.self, forKey: .text) }
        #expect(throws: DecodingError.self) { try keeper.container.decode(Int.self, forKey: .count) }
        #expect(try keeper.container.decodeIfPresent(String.self, forKey: .text) == nil)
        #expect(!keeper.container.contains(.count))
        let again = try keeper.decoder.container(keyedBy: Keeper.Keys.self)
        #expect(throws: DecodingError.self) { try again.decode(String.self, forKey: .text) }
        #expect(try decode(Plain.self, ["text": "third", "count": 3], shape: shape, readers: readers) == Plain(text: "third", count: 3))
    }

    /// A string of each packed form: its bytes (`plain`, `accented`, `wide`, `empty`), a UUID in either case, a
    /// timestamp, lower-case hex digits.
    struct Texts: Codable, Equatable {
        var plain, accented: String
        var wide: String?
        var upper: String, lower: String?
        var at, hex, empty: String
        var missing: String?
    }

    @Test func stringsOfEveryPackedFormAndNotASCIIDecodeByteForByte() throws {
        let readers = PackedObjectReaders()
        let texts = Texts(plain: "milk", accented: "grüße, ärger", wide: "日本語 😀", upper: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
                          lower: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", at: "2026-11-29T09:29:49.062Z", hex: "0a1b2c3",
                          empty: "", missing: nil)
        let object = try #require(try JSONValueEncoder().encode(texts).objectValue)
        for _ in 0..<2 {
            #expect(try decode(Texts.self, object, readers: readers) == texts)
        }
        var nulls = object
        nulls["wide"] = .null
        nulls["lower"] = .null
        try expectSameAsTree(Texts.self, nulls, readers: readers)
    }

    /// Asks whether each member is null before decoding it, whatever its kind.
    struct NilAsking: Decodable, Equatable {
        enum Keys: String, CodingKey { case list, inner, flag, nothing }
        var nils: [Bool]
        var list: [Int]?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            nils = try [Keys.list, .inner, .flag, .nothing].map { try container.decodeNil(forKey: $0) }
            list = try container.decodeIfPresent([Int].self, forKey: .list)
        }
    }

    @Test func decodeNilTellsNullFromNestedValuesAndScalars() throws {
        let readers = PackedObjectReaders()
        try expectSameAsTree(NilAsking.self, ["list": [1, 2], "inner": ["a": 1], "flag": true, "nothing": .null], readers: readers)
        try expectSameAsTree(NilAsking.self, ["list": .null, "inner": [], "flag": .null, "nothing": .null], readers: readers)
        try expectSameAsTree(NilAsking.self, ["list": [1], "inner": 1, "flag": false], readers: readers)
    }

    @Test func damagedBytesFailAsAWholeAndTheReaderServesTheNextDecode() throws {
        let readers = PackedObjectReaders()
        let object: JSONObject = ["text": "a text long enough", "count": 7]
        let (bytes, shape) = try packed(object)
        for cut in 2..<bytes.count {
            let damaged = Array(bytes[..<cut])
            let outcome = DecodingOutcome {
                try damaged.withUnsafeBytes { try PackedObjectDecoder(reusing: readers).decode(Plain.self, from: $0, shape: shape) }
            }
            #expect(outcome == .failure(kind: "dataCorrupted", path: []), "cut at \(cut)")
            #expect(try decode(Plain.self, object, shape: shape, readers: readers) == Plain(text: "a text long enough", count: 7))
        }
    }
}
