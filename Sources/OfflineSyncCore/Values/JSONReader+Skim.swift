extension JSONReader {
    /// Checks that `bytes` hold one JSON object that ``result(_:)`` accepts, without building it, and returns the
    /// byte range of the value of each top-level member named in `keys` (nil when absent; the last one when a key
    /// repeats, as the reader keeps the last; a name listed twice in `keys` gets the range at each place). Opening a
    /// store uses it to read an item's id and indexed fields while leaving the rest as text.
    static func skimObject(_ bytes: UnsafeBufferPointer<UInt8>, keys: [String]) -> Result<[Range<Int>?], JSONParseError> {
        var members = 0
        return skimObject(bytes, keys: keys, memberCount: &members)
    }

    /// ``skimObject(_:keys:)``, counting the object's members (a repeated key counts each time) in `memberCount`.
    package static func skimObject(_ bytes: UnsafeBufferPointer<UInt8>, keys: [String], memberCount: inout Int) -> Result<[Range<Int>?], JSONParseError> {
        var reader = JSONReader(bytes)
        var ranges = [Range<Int>?](repeating: nil, count: keys.count)
        do throws(JSONParseError) {
            reader.skipWhitespace()
            let opening = try reader.peek()
            guard opening == UInt8(ascii: "{") else { throw JSONParseError(.unexpectedByte(opening), at: reader.index) }
            try reader.enterContainer()
            reader.skipWhitespace()
            if try reader.peek() == UInt8(ascii: "}") {
                reader.index += 1
            } else {
                while true {
                    reader.skipWhitespace()
                    let quote = try reader.peek()
                    guard quote == UInt8(ascii: "\"") else { throw JSONParseError(.unexpectedByte(quote), at: reader.index) }
                    let position = try reader.skimKey(keys)
                    try reader.skipColon()
                    let start = reader.index
                    try reader.skipValue()
                    if let position { ranges[position] = start..<reader.index }
                    memberCount += 1
                    if try reader.skipSeparator(closing: UInt8(ascii: "}")) { break }
                }
            }
            reader.skipWhitespace()
            if reader.index < bytes.count { throw JSONParseError(.trailingGarbage, at: reader.index) }
            // A key is matched at its first place in `keys`: give a later place of the same name its range too.
            for position in ranges.indices where ranges[position] == nil {
                if let first = keys[..<position].firstIndex(of: keys[position]) { ranges[position] = ranges[first] }
            }
            return .success(ranges)
        } catch {
            return .failure(error)
        }
    }

    /// Reads the key at the reader's opening quote and returns its position in `keys`, or nil for none of them. A
    /// key of printable ASCII without escapes (as keys almost always are) is compared by its bytes, not built.
    private mutating func skimKey(_ keys: [String]) throws(JSONParseError) -> Int? {
        let start = index + 1
        var end = start
        while end < bytes.count, bytes[end] >= 0x20, bytes[end] < 0x80, bytes[end] != UInt8(ascii: "\\"),
              bytes[end] != UInt8(ascii: "\"") {
            end += 1
        }
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return keys.firstIndex(of: try parseString()) }
        index = end + 1
        let key = UnsafeBufferPointer(rebasing: bytes[start..<end])
        if let position = keys.firstIndex(where: { Self.hasUTF8($0, key) }) { return position }
        // A key that is not ASCII may still equal this one as a String does (U+212A, the Kelvin sign, equals "K").
        return keys.firstIndex(of: String(decoding: key, as: UTF8.self))
    }

    /// Whether `text`'s UTF-8 is `bytes`, compared byte by byte.
    private static func hasUTF8(_ text: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard text.utf8.count == bytes.count else { return false }
        var text = text
        return text.withUTF8 { utf8 in
            for index in 0..<utf8.count where utf8[index] != bytes[index] { return false }
            return true
        }
    }

    /// Advances over one value, checking it as ``parseValue()`` does, without building it.
    private mutating func skipValue() throws(JSONParseError) {
        switch try peek() {
        case UInt8(ascii: "{"):
            try enterContainer()
            skipWhitespace()
            if try peek() == UInt8(ascii: "}") {
                index += 1
            } else {
                while true {
                    skipWhitespace()
                    let quote = try peek()
                    guard quote == UInt8(ascii: "\"") else { throw JSONParseError(.unexpectedByte(quote), at: index) }
                    try skipString()
                    try skipColon()
                    try skipValue()
                    if try skipSeparator(closing: UInt8(ascii: "}")) { break }
                }
            }
            depth -= 1
        case UInt8(ascii: "["):
            try enterContainer()
            skipWhitespace()
            if try peek() == UInt8(ascii: "]") {
                index += 1
            } else {
                while true {
                    skipWhitespace()
                    try skipValue()
                    if try skipSeparator(closing: UInt8(ascii: "]")) { break }
                }
            }
            depth -= 1
        case UInt8(ascii: "\""):
            try skipString()
        case UInt8(ascii: "t"): try expectLiteral("true")
        case UInt8(ascii: "f"): try expectLiteral("false")
        case UInt8(ascii: "n"): try expectLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try parseNumber()
        case let byte: throw JSONParseError(.unexpectedByte(byte), at: index)
        }
    }

    /// Advances over a string, checking it as ``parseString()`` does; builds it only when it has escapes.
    private mutating func skipString() throws(JSONParseError) {
        index += 1  // opening quote
        let start = index
        skipPlainASCII()
        var isASCII = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                if !isASCII {
                    let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    let invalid = UTF8Validation.firstInvalidOffset(slice)
                    if invalid < slice.count { throw JSONParseError(.invalidUTF8, at: start + invalid) }
                }
                index += 1
                return
            }
            if byte == UInt8(ascii: "\\") {
                _ = try parseEscapedString(from: start)
                return
            }
            if byte < 0x20 { throw JSONParseError(.controlCharacterInString, at: index) }
            if byte >= 0x80 { isASCII = false }
            index += 1
        }
        throw JSONParseError(.unexpectedEnd, at: index)
    }

    /// Whitespace, a colon, whitespace.
    private mutating func skipColon() throws(JSONParseError) {
        skipWhitespace()
        let colon = try peek()
        guard colon == UInt8(ascii: ":") else { throw JSONParseError(.unexpectedByte(colon), at: index) }
        index += 1
        skipWhitespace()
    }

    /// Whitespace, then a comma (false) or `closing` (true).
    private mutating func skipSeparator(closing: UInt8) throws(JSONParseError) -> Bool {
        skipWhitespace()
        let next = try peek()
        index += 1
        if next == UInt8(ascii: ",") { return false }
        if next == closing { return true }
        throw JSONParseError(.unexpectedByte(next), at: index - 1)
    }
}
