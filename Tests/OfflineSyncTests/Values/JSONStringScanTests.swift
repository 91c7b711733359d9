import OfflineSync
import OfflineSyncTesting
import Testing

/// The reader and writer skip plain string content eight bytes at a time; these tests put the bytes that matter at
/// every position relative to those eight-byte words, and check members and elements of nested containers.
struct JSONStringScanTests {
    static let positions = Array(0..<20)

    /// A 24-character ASCII string with `inserted` at `position`.
    private func text(with inserted: String, at position: Int) -> String {
        String(repeating: "a", count: position) + inserted + String(repeating: "b", count: 23 - position)
    }

    @Test(arguments: positions)
    func escapedCharactersAreFoundAtEveryPosition(position: Int) throws {
        for (escape, character) in [(#"\""#, "\""), (#"\\"#, "\\"), (#"\n"#, "\n"), (#"\u00e9"#, "é")] {
            let json = "\"" + text(with: escape, at: position) + "\""
            #expect(try JSONValue(parsing: json) == .string(text(with: character, at: position)))
        }
    }

    @Test(arguments: positions)
    func rawControlCharacterIsRejectedAtItsOffset(position: Int) {
        let json = "[\"" + text(with: "\t", at: position) + "\"]"
        #expect(throws: JSONParseError(.controlCharacterInString, at: 2 + position)) { try JSONValue(parsing: json) }
    }

    @Test(arguments: positions)
    func invalidUTF8IsRejectedAtItsOffset(position: Int) {
        var bytes = Array(("\"" + text(with: "x", at: position) + "\"").utf8)
        bytes[1 + position] = 0xFF
        #expect(throws: JSONParseError(.invalidUTF8, at: 1 + position)) { try JSONValue(parsing: bytes) }
    }

    @Test(arguments: positions)
    func nonASCIITextReadsBackAtEveryPosition(position: Int) throws {
        let value = text(with: "é✓😀", at: position)
        #expect(try JSONValue(parsing: "\"" + value + "\"") == .string(value))
    }

    @Test(arguments: positions)
    func writerEscapesAtEveryPosition(position: Int) throws {
        for (character, escape) in [("\"", #"\""#), ("\\", #"\\"#), ("\n", #"\n"#), ("\u{1}", #"\u0001"#)] {
            let value = JSONValue.string(text(with: character, at: position))
            #expect(value.jsonString() == "\"" + text(with: escape, at: position) + "\"")
            #expect(try JSONValue(parsing: value.jsonBytes()) == value)
        }
    }

    @Test func writerLeavesNonASCIIUnescaped() {
        #expect(JSONValue.string("héllo wörld ✓ 12345678").jsonString() == "\"héllo wörld ✓ 12345678\"")
    }

    @Test func nestedContainersKeepEveryMemberAndElement() throws {
        let json = #"{"a":[1,{"b":[2,3],"c":{}},[]],"d":[],"e":{"x":{"y":[[],[{}]]}},"f":"long enough string"}"#
        let expected: JSONValue = [
            "a": [1, ["b": [2, 3], "c": [:]], []], "d": [], "e": ["x": ["y": [[], [[:]]]]], "f": "long enough string",
        ]
        #expect(try JSONValue(parsing: json) == expected)
        #expect(try JSONValue(parsing: expected.jsonBytes()) == expected)
    }

    static let repeatedKeys: [(String, JSONValue)] = [
        (#"{"a":1,"b":2,"a":3}"#, ["a": 3, "b": 2]),
        (#"{"a":1,"a":2,"a":3}"#, ["a": 3]),
        (#"{"a":{"a":1,"a":2},"a":[{"b":1,"b":[2]}]}"#, ["a": [["b": [2]]]]),
    ]

    @Test(arguments: repeatedKeys)
    func repeatedKeyKeepsTheLastValue(json: String, expected: JSONValue) throws {
        #expect(try JSONValue(parsing: json) == expected)
    }

    @Test(arguments: [
        (#"{"a":1,"b""#, JSONParseError(.unexpectedEnd, at: 10)),
        (#"[1,2,}"#, JSONParseError(.unexpectedByte(UInt8(ascii: "}")), at: 5)),
        (#"{"a":[1,2}"#, JSONParseError(.unexpectedByte(UInt8(ascii: "}")), at: 9)),
        (#"{"a":{"b":1}"#, JSONParseError(.unexpectedEnd, at: 12)),
        (#"{"abcdefghijklmnop"#, JSONParseError(.unexpectedEnd, at: 18)),
    ])
    func truncatedContainersReportTheirOffset(json: String, error: JSONParseError) {
        #expect(throws: error) { try JSONValue(parsing: json) }
    }

    @Test func randomStringsRoundTripThroughWriterAndReader() throws {
        let alphabet = ["a", "Z", "\"", "\\", "\n", "\u{1}", "\u{1F}", " ", "/", "\u{7F}", "é", "✓", "😀"]
        var generator = SplitMix64(seed: 7)
        for _ in 0..<2_000 {
            let length = Int(generator.next() % 41)
            let text = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }.joined()
            let value: JSONValue = [text: .string(text)]
            #expect(try JSONValue(parsing: value.jsonBytes()) == value)
        }
    }
}
