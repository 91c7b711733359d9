import Testing
import Foundation
@testable import OfflineSyncCore

/// `JSONValueEncoder` makes the tree that `JSONEncoder`'s text reads back as, and `JSONValueDecoder` decodes a tree as
/// `JSONDecoder` decodes its text (``JSONTextCoding``, the typed API's former path).
struct JSONValueCoderDifferentialTests {
    typealias Samples = CodingSamples

    /// Encodes `value` both ways and expects the same tree; decodes that tree both ways and expects the same value.
    private func expectSameAsJSONText<Value: Codable & Equatable>(_ value: Value, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let tree = try JSONValueEncoder().encode(value)
        let textTree = try JSONTextCoding.encode(value)
        #expect(tree == textTree, sourceLocation: sourceLocation)
        let decoded = try JSONValueDecoder().decode(Value.self, from: textTree)
        #expect(decoded == (try JSONTextCoding.decode(Value.self, from: textTree)), sourceLocation: sourceLocation)
    }

    /// Decodes `tree` both ways and expects the same value or the same kind of error at the same coding path.
    private func expectSameDecoding<Value: Decodable & Equatable>(_ type: Value.Type, from tree: JSONValue,
                                                                 sourceLocation: SourceLocation = #_sourceLocation) {
        let outcome = DecodingOutcome { try JSONValueDecoder().decode(Value.self, from: tree) }
        let textOutcome = DecodingOutcome { try JSONTextCoding.decode(Value.self, from: tree) }
        #expect(outcome == textOutcome, "\(tree.jsonString())", sourceLocation: sourceLocation)
    }

    @Test func everyScalarTypeCodesAsThroughJSONText() throws {
        try expectSameAsJSONText(Samples.Scalars())
        var extremes = Samples.Scalars()
        (extremes.int, extremes.int8, extremes.int16, extremes.int32, extremes.int64) = (Int.max, .min, .max, .min, .min)
        (extremes.uint, extremes.uint8, extremes.uint16, extremes.uint32, extremes.uint64) = (0, 0, 0, 0, 0)
        (extremes.bool, extremes.string) = (false, "")
        try expectSameAsJSONText(extremes)
    }

    @Test func doublesFloatsAndDecimalsCodeAsThroughJSONText() throws {
        for (index, double) in Samples.doubles.enumerated() {
            let float = Samples.floats[index % Samples.floats.count]
            let decimal = Samples.decimals[index % Samples.decimals.count]
            try expectSameAsJSONText(Samples.Numbers(double: double, float: float, decimal: decimal))
        }
    }

    @Test func optionalsNilAreLeftOutAndSetOnesWritten() throws {
        try expectSameAsJSONText(Samples.Optionals())
        let tree = try JSONValueEncoder().encode(Samples.Optionals())
        #expect(tree.objectValue?["unset"] == nil)
        #expect(tree.objectValue?["list"] == [1, .null, 3])
        try expectSameAsJSONText(Samples.Optionals(set: nil, number: nil, flag: nil, ratio: nil, count: nil, date: nil,
                                                   inner: nil, list: nil))
    }

    @Test func nestedModelsArraysDictionariesAndEnumsCodeAsThroughJSONText() throws {
        try expectSameAsJSONText(Samples.Nested())
        let tree = try JSONValueEncoder().encode(Samples.Nested())
        #expect(tree.objectValue?["byNumber"] == ["1": "one", "20": "twenty"], "Int keys are written as strings")
        #expect(tree.objectValue?["empty"] == .object([:]), "a value that encodes nothing is an empty object")
    }

    @Test func datesDataURLsUUIDsAndDecimalsCodeAsThroughJSONText() throws {
        try expectSameAsJSONText(Samples.Foundations())
        let tree = try JSONValueEncoder().encode(Samples.Foundations())
        #expect(tree.objectValue?["whole"] == "2026-01-01T00:00:00.000Z")
        #expect(tree.objectValue?["milliseconds"] == "2026-01-01T00:00:00.123Z")
        #expect(tree.objectValue?["data"] == "AAEC+v8=")
        #expect(tree.objectValue?["relative"] == "https://example.com/base/x/y")
    }

    @Test func customCodingKeysAndCustomCodingCodeAsThroughJSONText() throws {
        try expectSameAsJSONText(Samples.Renamed())
        try expectSameAsJSONText(Samples.Custom())
        try expectSameAsJSONText(Samples.Row())
        try expectSameAsJSONText(Samples.Derived(title: "d", created: Date(timeIntervalSince1970: 12.25)))
        let row = try JSONValueEncoder().encode(Samples.Row())
        #expect(row == ["a", "b", ["note": "n"], [1, 2], .null], "the super-encoder's value sits at its position")
    }

    @Test func singleValueTypesAndTopLevelScalarsCodeAsThroughJSONText() throws {
        try expectSameAsJSONText(Samples.Celsius(degrees: 36.6))
        try expectSameAsJSONText([Samples.Celsius(degrees: 1), Samples.Celsius(degrees: -0.5)])
        try expectSameAsJSONText(Date(timeIntervalSince1970: 1_767_225_600.999))
        try expectSameAsJSONText("top")
        try expectSameAsJSONText(42)
    }

    @Test func scalarsInArraysAndDictionariesCodeAsThroughJSONText() throws {
        try expectSameAsJSONText(Samples.Collections())
        let item = (try? JSONTextCoding.encode(Samples.Collections()))?.objectValue ?? [:]
        for (key, value): (String, JSONValue) in [("tags", ["a", 1]), ("tags", "a"), ("tags", .null), ("flags", [1]), ("counts", ["1"]),
                                                  ("ints", [.double(2), "3"]), ("ratios", ["x": "y"]), ("notes", ["a": 1])] {
            var changed = item
            changed[key] = value
            expectSameDecoding(Samples.Collections.self, from: .object(changed))
        }
    }

    @Test func jsonValueFieldsCodeAsTheirCodableConformanceDoes() throws {
        try expectSameAsJSONText(Samples.Trees())
        let tree = try JSONValueEncoder().encode(Samples.Trees())
        #expect(tree.objectValue?["extra"]?.objectValue?["whole"] == .int(2), "JSONEncoder writes 2.0 as 2")
        #expect(tree.objectValue?["extra"]?.objectValue?["big"] == .double(1e16))
        let decoded = try JSONValueDecoder().decode(Samples.Trees.self, from: ["extra": .double(1e16), "plain": .null, "list": []])
        #expect(decoded.extra == .int(10_000_000_000_000_000), "JSONValue's decoder tries Int64 before Double")
    }

    @Test func numbersOfEitherKindDecodeAsThroughJSONText() {
        for double: JSONValue in [.int(5), .double(0.1), .double(1e20), .double(-0.0), .int(Int64.max)] {
            for float: JSONValue in [.int(16_777_217), .double(0.1), .double(3.4028235e38), .double(1.1754942e-38), .int(-3)] {
                for decimal: JSONValue in [.int(7), .double(0.1), .double(1e20), .double(-2.5e-7)] {
                    expectSameDecoding(Samples.Numbers.self, from: ["double": double, "float": float, "decimal": decimal])
                }
            }
        }
        for whole: JSONValue in [.int(-3), .double(3), .double(-0.0), .double(1e2), .double(9.2e18)] {
            expectSameDecoding(Int64.self, from: whole)
            expectSameDecoding(UInt64.self, from: whole)
        }
    }

    @Test func wrongKindsMissingKeysAndBadValuesFailAsThroughJSONText() {
        let base = (try? JSONTextCoding.encode(Samples.Optionals()))?.objectValue ?? [:]
        for (key, value): (String, JSONValue) in [("set", 1), ("number", "1"), ("number", true), ("flag", 1), ("ratio", "x"),
                                                  ("date", "2026-13-01T00:00:00Z"), ("date", 0), ("inner", []), ("inner", ["values": []]),
                                                  ("list", [1, "x"]), ("list", ["y": 1]), ("count", .null)] {
            var item = base
            item[key] = value
            expectSameDecoding(Samples.Optionals.self, from: .object(item))
        }
        let foundations = (try? JSONTextCoding.encode(Samples.Foundations()))?.objectValue ?? [:]
        for (key, value): (String, JSONValue) in [("data", "not base64!"), ("data", 5), ("url", ""), ("uuid", "nope"),
                                                  ("decimal", "1"), ("whole", .null), ("dates", [0]), ("datesByName", ["due": "soon"])] {
            var item = foundations
            item[key] = value
            expectSameDecoding(Samples.Foundations.self, from: .object(item))
        }
        var nested = (try? JSONTextCoding.encode(Samples.Nested()))?.objectValue ?? [:]
        nested["status"] = "closed"
        expectSameDecoding(Samples.Nested.self, from: .object(nested))
        nested["status"] = "open"
        nested["byNumber"] = ["x": "not a number key"]
        expectSameDecoding(Samples.Nested.self, from: .object(nested))
        expectSameDecoding(Samples.Row.self, from: ["a"])
        expectSameDecoding(Samples.Custom.self, from: ["name": "n", "position": ["x": 1], "flags": [], "temperatures": []])
        expectSameDecoding(Samples.Custom.self, from: ["name": "n", "position": .null, "flags": [], "temperatures": []])
        expectSameDecoding(Samples.Custom.self, from: ["name": "n", "position": ["x": 1, "y": 2], "flags": [], "temperatures": []])
    }
}
