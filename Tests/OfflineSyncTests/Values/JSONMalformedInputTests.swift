import Testing
import OfflineSync

struct JSONMalformedInputTests {
    static let cases: [(String, [UInt8], JSONParseError)] = [
        ("empty input", [], JSONParseError(.unexpectedEnd, at: 0)),
        ("truncated object", Array(#"{"a": 1"#.utf8), JSONParseError(.unexpectedEnd, at: 7)),
        ("truncated string", Array(#"["abc"#.utf8), JSONParseError(.unexpectedEnd, at: 5)),
        ("truncated literal", Array("tru".utf8), JSONParseError(.unexpectedEnd, at: 3)),
        ("truncated escape", Array(#""\u12"#.utf8), JSONParseError(.unexpectedEnd, at: 5)),
        ("bad escape", Array(#""a\x""#.utf8), JSONParseError(.invalidEscape, at: 2)),
        ("bad hex escape", Array(#""\u12G4""#.utf8), JSONParseError(.invalidEscape, at: 1)),
        ("lone high surrogate", Array(#""\ud800x""#.utf8), JSONParseError(.invalidEscape, at: 1)),
        ("lone low surrogate", Array(#""\udc00""#.utf8), JSONParseError(.invalidEscape, at: 1)),
        ("invalid UTF-8 lead byte", [0x22, 0x61, 0xFF, 0x22], JSONParseError(.invalidUTF8, at: 2)),
        ("truncated UTF-8 sequence", [0x22, 0xC3, 0x22], JSONParseError(.invalidUTF8, at: 1)),
        ("overlong UTF-8", [0x22, 0xC0, 0xAF, 0x22], JSONParseError(.invalidUTF8, at: 1)),
        ("UTF-8 surrogate", [0x22, 0xED, 0xA0, 0x80, 0x22], JSONParseError(.invalidUTF8, at: 1)),
        ("raw control character", [0x22, 0x0A, 0x22], JSONParseError(.controlCharacterInString, at: 1)),
        ("integer above Int64", Array("9223372036854775808".utf8), JSONParseError(.numberOutOfRange, at: 0)),
        ("integer below Int64", Array("-9223372036854775809".utf8), JSONParseError(.numberOutOfRange, at: 0)),
        ("double overflow", Array("[1e400]".utf8), JSONParseError(.numberOutOfRange, at: 1)),
        ("leading zero", Array("012".utf8), JSONParseError(.invalidNumber, at: 0)),
        ("bare minus", Array("-x".utf8), JSONParseError(.invalidNumber, at: 1)),
        ("fraction without digits", Array("1.e5".utf8), JSONParseError(.invalidNumber, at: 2)),
        ("trailing garbage", Array("{} x".utf8), JSONParseError(.trailingGarbage, at: 3)),
        ("two values", Array("1 2".utf8), JSONParseError(.trailingGarbage, at: 2)),
        ("trailing comma", Array("[1,]".utf8), JSONParseError(.unexpectedByte(UInt8(ascii: "]")), at: 3)),
        ("missing colon", Array(#"{"a" 1}"#.utf8), JSONParseError(.unexpectedByte(UInt8(ascii: "1")), at: 5)),
        ("non-string key", Array("{1:2}".utf8), JSONParseError(.unexpectedByte(UInt8(ascii: "1")), at: 1)),
        ("single quotes", Array("'a'".utf8), JSONParseError(.unexpectedByte(UInt8(ascii: "'")), at: 0)),
        ("NaN", Array("NaN".utf8), JSONParseError(.unexpectedByte(UInt8(ascii: "N")), at: 0)),
    ]

    @Test(arguments: cases)
    func malformedInputThrowsWithOffset(_ name: String, _ bytes: [UInt8], _ expected: JSONParseError) {
        #expect(throws: expected, "\(name)") { try JSONValue(parsing: bytes) }
    }

    @Test func nestingDeeperThanTheLimitIsRefused() {
        let depth = JSONReader.maximumDepth + 1
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(throws: JSONParseError(.tooDeep, at: JSONReader.maximumDepth)) { try JSONValue(parsing: text) }
    }

    @Test func nestingAtTheLimitIsAccepted() throws {
        let depth = JSONReader.maximumDepth
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        _ = try JSONValue(parsing: text)
    }

    @Test func everyTruncationOfAValidDocumentThrows() throws {
        let bytes = Array(#"{"id":"A1","n":-12.5e3,"s":"é\n😀","a":[true,false,null],"o":{}}"#.utf8)
        _ = try JSONValue(parsing: bytes)
        for length in 0..<bytes.count {
            #expect(throws: JSONParseError.self) { try JSONValue(parsing: bytes[0..<length]) }
        }
    }

    @Test func errorDescriptionNamesTheOffset() {
        let error = JSONParseError(.trailingGarbage, at: 17)
        #expect(error.description.contains("byte offset 17"))
    }
}
