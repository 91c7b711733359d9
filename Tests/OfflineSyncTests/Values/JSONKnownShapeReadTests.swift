import Testing
@testable import OfflineSync

/// Reading one document with a table's known shape (``JSONReader/result(_:knownShape:)``, whose compact objects
/// skip reading their keys) gives exactly what the plain reader gives, value or typed error, for any text.
struct JSONKnownShapeReadTests {
    static let keys = ["id", "text", "n", "x", "flag", "none", "list", "nested", "", "q\"uote", "ключ", "e\u{301}", "😀"]

    static func plain(_ bytes: [UInt8]) -> Result<JSONValue, JSONParseError> {
        bytes.withUnsafeBufferPointer { JSONReader.result($0) }
    }

    static func shaped(_ bytes: [UInt8], _ shape: JSONObjectShape?) -> Result<JSONValue, JSONParseError> {
        bytes.withUnsafeBufferPointer { JSONReader.result($0, knownShape: shape) }
    }

    /// An object with every kind of value, under keys that need escaping, are not ASCII, or are empty.
    static func object(_ seed: Int64) -> JSONObject {
        [
            "id": .string("A\(seed)"), "text": "tab\t \"quoted\" \\ / \u{1} é 😀 \u{10FFFF}",
            "n": .int(seed % 2 == 0 ? Int64.max : Int64.min), "x": .double(seed % 2 == 0 ? Double.leastNonzeroMagnitude : -Double.greatestFiniteMagnitude),
            "flag": .bool(seed % 2 == 0), "none": .null, "list": [1, -0.5, "s", [], [:], nil, true],
            "nested": ["a": ["b": [1, 2, ["c": "d"]]], "": 0], "": "empty key", "q\"uote": -0, "ключ": "значение",
            "e\u{301}": "combining", "😀": 1e-7,
        ]
    }

    @Test func compactObjectsOfTheShapeReadBackEqualInAnyKeyOrder() throws {
        let shape = try #require(JSONObjectShape(keys: Self.keys))
        for seed in Int64(0)..<40 {
            let object = Self.object(seed)
            let text = JSONValue.object(object).jsonBytes()
            #expect(try Self.shaped(text, shape).get() == .object(object))
            #expect(try Self.shaped(text, shape).get() == (try Self.plain(text).get()))
            let sorted = JSONValue.object(object).jsonBytes(sortedKeys: true)
            #expect(try Self.shaped(sorted, shape).get() == .object(object))
        }
    }

    @Test(arguments: [
        #"{"id":"a","n":1}"#,                                         // fewer keys
        #"{"id":"a","n":1,"n":2}"#,                                   // a repeated key: the last one wins
        #"{"id":"a","n":1,"other":2}"#,                               // another key
        #"{"n":1,"id":"a","flag":true,"more":[1,2]}"#,                // more keys
        #"{ "id" : "a" , "n" : 1 , "flag" : true }"#,                 // whitespace
        #"{"i\u0064":"a","n":1,"flag":true}"#,                        // a key written with an escape
        #"{"id":"a","n":1,"flag":true} "#,                            // trailing whitespace
        #"{"id":"a","n":1,"flag":true}x"#,                            // trailing garbage
        #"{"id":"a","n":1,"flag":tru}"#,                              // a broken literal
        #"{"id":"a","n":01,"flag":true}"#,                            // a leading zero
        #"{"id":"a","n":9223372036854775808,"flag":true}"#,           // an integer past Int64.max
        #"{"id":"a","n":-9223372036854775808,"flag":true}"#,          // Int64.min
        #"{"id":"a","n":1e999,"flag":true}"#,                         // a double out of range
        #"{"id":"a\"#,                                                // cut inside a value
        #"{"id":"a","n":1,"flag":true"#,                              // no closing brace
        #"{"id":"a","n":1,"flag":[[[[]]]]}"#,
        #"{"id":"\ud800","n":1,"flag":true}"#,                        // a lone surrogate
        #"[{"id":"a","n":1,"flag":true}]"#,                           // not an object
        #"{}"#, #""#, #"{"#, #"{"id""#, #"{"id":"#,
    ])
    func anyOtherTextReadsAsThePlainReaderReadsIt(_ text: String) throws {
        let shape = try #require(JSONObjectShape(keys: ["id", "n", "flag"]))
        let bytes = Array(text.utf8)
        #expect(Self.shaped(bytes, shape) == Self.plain(bytes), "\(text)")
        #expect(Self.shaped(bytes, nil) == Self.plain(bytes), "\(text)")
    }

    @Test func invalidUTF8AndControlCharactersGiveTheReadersTypedErrors() throws {
        let shape = try #require(JSONObjectShape(keys: ["id", "n"]))
        for bad: [UInt8] in [[0xFF], [0xC3], [0xE2, 0x82], [0x0A], [0x00]] {
            let bytes = Array(#"{"id":""#.utf8) + bad + Array(#"","n":1}"#.utf8)
            let result = Self.shaped(bytes, shape)
            #expect(result == Self.plain(bytes))
            #expect(throws: JSONParseError.self) { try result.get() }
        }
    }

    @Test func nestingDepthIsLimitedAsInThePlainReader() throws {
        let shape = try #require(JSONObjectShape(keys: ["id", "n"]))
        for depth in [JSONReader.maximumDepth - 2, JSONReader.maximumDepth - 1, JSONReader.maximumDepth] {
            let text = #"{"id":"a","n":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
            let bytes = Array(text.utf8)
            #expect(Self.shaped(bytes, shape) == Self.plain(bytes), "depth \(depth)")
        }
    }
}
