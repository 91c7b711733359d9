import Testing
import OfflineSync

struct JSONValueTests {
    @Test(arguments: [
        ("9223372036854775807", JSONValue.int(Int64.max)),
        ("-9223372036854775808", .int(Int64.min)),
        ("0", .int(0)),
        ("-0", .int(0)),
        ("1.5", .double(1.5)),
        ("-2.5e-3", .double(-0.0025)),
        ("1E2", .double(100)),
        ("1.0", .double(1)),
        ("true", .bool(true)),
        ("null", .null),
        ("\"\"", .string("")),
        ("[]", .array([])),
        ("{}", .object([:])),
        (" [1, \"a\", {\"b\": null}] ", .array([1, "a", ["b": nil]])),
    ])
    func parsesValues(_ text: String, _ expected: JSONValue) throws {
        #expect(try JSONValue(parsing: text) == expected)
    }

    @Test(arguments: [
        JSONValue.int(Int64.max), .int(Int64.min), .int(-1), .double(0.1), .double(1e300), .double(-Double.leastNonzeroMagnitude),
        .double(123456789.125), .double(1.0), .double(1e16), .string("tab\t nl\n quote\" back\\ nul\u{0} \u{1F}"),
        .string("é 日本 😀 \u{10FFFF}"), .bool(false), .null,
        .array([.array([.array([])]), .object(["a": .object(["b": [1, 2]])])]),
    ])
    func valuesRoundTrip(_ value: JSONValue) throws {
        let bytes = value.jsonBytes()
        #expect(try JSONValue(parsing: bytes) == value)
    }

    @Test func doublesStayDoublesAndIntsStayInts() throws {
        #expect(JSONValue.double(2).jsonString() == "2.0")
        #expect(try JSONValue(parsing: JSONValue.double(2).jsonBytes()) == .double(2))
        #expect(JSONValue.int(2).jsonString() == "2")
    }

    @Test func escapesAreDecoded() throws {
        let text = #""\" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 \u0000""#
        #expect(try JSONValue(parsing: text) == .string("\" \\ / \u{8} \u{C} \n \r \t é 😀 \u{0}"))
    }

    @Test func writerEscapesOnlyWhatJSONRequires() {
        #expect(JSONValue.string("a\"b\\c\nd\u{1}é/").jsonString() == #""a\"b\\c\nd\u0001é/""#)
    }

    @Test func sortedKeysAreStable() {
        let value: JSONValue = ["b": 1, "a": ["d": 2, "c": 3]]
        #expect(value.jsonString(sortedKeys: true) == #"{"a":{"c":3,"d":2},"b":1}"#)
    }

    @Test func nonFiniteDoublesAreWrittenAsNull() {
        #expect(JSONValue.double(.infinity).jsonString() == "null")
    }

    @Test func codableMatchesTheValue() throws {
        let value: JSONValue = ["id": "x", "n": 9_007_199_254_740_993, "d": 2.5, "b": true, "z": nil, "a": [1]]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == value)
    }

    @Test func literalsBuildValues() {
        let value: JSONValue = ["a": [1, 2.5, "s", true, nil]]
        #expect(value.objectValue?["a"]?.arrayValue?.count == 5)
        #expect(JSONValue.int(3).doubleValue == 3)
        #expect(JSONValue.string("x").stringValue == "x")
        #expect(JSONValue.null.isNull)
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
