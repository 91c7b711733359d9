/// Why JSON text could not be parsed, and where.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of malformed input the reader reports.
    public enum Reason: Sendable, Hashable {
        /// The text ended inside a value.
        case unexpectedEnd
        /// A byte that cannot start or continue a value here.
        case unexpectedByte(UInt8)
        /// A backslash escape that JSON does not define, or a lone surrogate.
        case invalidEscape
        /// A control character (below U+0020) inside a string.
        case controlCharacterInString
        /// Bytes that are not valid UTF-8.
        case invalidUTF8
        /// A number that is malformed or does not fit (`Int64` for integers, finite `Double` otherwise).
        case numberOutOfRange
        /// A number that does not follow the JSON grammar.
        case invalidNumber
        /// Arrays and objects nested deeper than ``JSONReader/maximumDepth``.
        case tooDeep
        /// Non-whitespace bytes after the complete value.
        case trailingGarbage
    }

    /// What is wrong.
    public var reason: Reason
    /// The byte offset in the input where the problem was found.
    public var offset: Int

    /// Creates an error.
    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// A sentence saying what is wrong and where.
    public var description: String {
        let what: String
        switch reason {
        case .unexpectedEnd: what = "the text ends in the middle of a value"
        case .unexpectedByte(let byte): what = "unexpected byte 0x\(String(byte, radix: 16))"
        case .invalidEscape: what = "invalid escape sequence in a string"
        case .controlCharacterInString: what = "unescaped control character in a string"
        case .invalidUTF8: what = "invalid UTF-8"
        case .numberOutOfRange: what = "number out of range"
        case .invalidNumber: what = "malformed number"
        case .tooDeep: what = "arrays and objects nested deeper than \(JSONReader.maximumDepth) levels"
        case .trailingGarbage: what = "unexpected text after the JSON value"
        }
        return "Invalid JSON at byte offset \(offset): \(what)."
    }
}
