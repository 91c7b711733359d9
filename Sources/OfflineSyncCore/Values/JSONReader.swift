/// A strict, fast JSON reader over UTF-8 bytes (RFC 8259).
///
/// Integers without fraction or exponent become `.int` and must fit in `Int64`; other numbers become `.double`
/// and must be finite. Every malformed input throws a ``JSONParseError`` with the byte offset; nothing traps.
/// Parse with ``JSONValue/init(parsing:)-(String)`` or its byte-collection twin.
public struct JSONReader: ~Copyable {
    /// The deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 512

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0
    /// Members of the objects being read, innermost last (see `parseObject`).
    private var members: [Member] = []
    /// Elements of the arrays being read, innermost last.
    private var elements: [JSONValue] = []
    /// The key sequence of the last object read with at least two distinct keys (see ``JSONObjectShape``).
    private var shape: JSONObjectShape?
    /// Objects completed so far; a single object is built key by key without learning its shape.
    private var objectsRead = 0
    /// Whether to learn shapes from the first object on (the caller carries the shape to the next document).
    private var learnsShapes = false

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses one complete JSON value from `bytes`; surrounding whitespace is allowed, anything else is not.
    /// - Throws: ``JSONParseError``.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
        var reader = JSONReader(bytes)
        reader.skipWhitespace()
        let value = try reader.parseValue()
        reader.skipWhitespace()
        if reader.index < bytes.count { throw JSONParseError(.trailingGarbage, at: reader.index) }
        return value
    }

    /// Parses like ``parse(_:)`` and returns the outcome as a `Result`.
    package static func result(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONParseError> {
        do { return .success(try parse(bytes)) } catch { return .failure(error) }
    }

    /// Parses like ``result(_:)``, starting with `shape` as the known object shape and leaving the last one there:
    /// for many small documents whose objects share their keys (a snapshot's items), so that each object is a
    /// copy of a prototype with its values replaced instead of a dictionary built by hashing every key.
    package static func result(_ bytes: UnsafeBufferPointer<UInt8>, shape: inout JSONObjectShape?) -> Result<JSONValue, JSONParseError> {
        var reader = JSONReader(bytes)
        reader.shape = shape
        reader.learnsShapes = true
        defer { shape = reader.shape }
        return reader.readDocument()
    }

    /// The whole document from the reader's position, surrounding whitespace allowed.
    private mutating func readDocument() -> Result<JSONValue, JSONParseError> {
        do throws(JSONParseError) {
            skipWhitespace()
            let value = try parseValue()
            skipWhitespace()
            if index < bytes.count { throw JSONParseError(.trailingGarbage, at: index) }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    func peek() throws(JSONParseError) -> UInt8 {
        guard index < bytes.count else { throw JSONParseError(.unexpectedEnd, at: index) }
        return bytes[index]
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        switch try peek() {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case let byte: throw JSONParseError(.unexpectedByte(byte), at: index)
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        let start = literal.utf8Start
        for offset in 0..<count {
            let byte = try peek()
            guard byte == start[offset] else { throw JSONParseError(.unexpectedByte(byte), at: index) }
            index += 1
        }
    }

    mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > JSONReader.maximumDepth { throw JSONParseError(.tooDeep, at: index) }
        index += 1
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(JSONObject())
        }
        // Members go on a stack shared by every object being read, so that the dictionary is allocated once at its
        // final size instead of growing (and rehashing) as members arrive.
        if members.capacity == 0 { members.reserveCapacity(16) }
        let base = members.count
        while true {
            skipWhitespace()
            let byte = try peek()
            guard byte == UInt8(ascii: "\"") else { throw JSONParseError(.unexpectedByte(byte), at: index) }
            let key = try parseString()
            skipWhitespace()
            let colon = try peek()
            guard colon == UInt8(ascii: ":") else { throw JSONParseError(.unexpectedByte(colon), at: index) }
            index += 1
            skipWhitespace()
            members.append(Member(key: key, value: try parseValue()))
            skipWhitespace()
            let next = try peek()
            index += 1
            if next == UInt8(ascii: ",") { continue }
            if next == UInt8(ascii: "}") { break }
            throw JSONParseError(.unexpectedByte(next), at: index - 1)
        }
        let count = members.count - base
        objectsRead += 1
        if let shape, let object = shape.instantiate(members[base...]) {
            members.removeLast(count)
            depth -= 1
            return .object(object)
        }
        let learns = (learnsShapes || objectsRead > 1) && count >= 2 && count <= JSONObjectShape.maximumKeys
        let keys = learns ? members[base...].map(\.key) : nil
        var object = JSONObject(minimumCapacity: count)
        // Moved off the stack last member first; when a key repeats, the member read last keeps its value.
        while members.count > base {
            let member = members.removeLast()
            if let later = object.updateValue(member.value, forKey: member.key) { object[member.key] = later }
        }
        if let keys, object.count == count { shape = JSONObjectShape(keys: keys) }
        depth -= 1
        return .object(object)
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array([])
        }
        // Elements go on a shared stack too, so that the array is allocated once at its final size.
        if elements.capacity == 0 { elements.reserveCapacity(16) }
        let base = elements.count
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            let next = try peek()
            index += 1
            if next == UInt8(ascii: ",") { continue }
            if next == UInt8(ascii: "]") { break }
            throw JSONParseError(.unexpectedByte(next), at: index - 1)
        }
        let array = Array(elements[base...])
        elements.removeLast(elements.count - base)
        depth -= 1
        return .array(array)
    }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        let start = index
        skipPlainASCII()
        var isASCII = true
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if isASCII { return String(decoding: slice, as: UTF8.self) }
                return try validatedString(slice, offset: start)
            }
            if byte == UInt8(ascii: "\\") { return try parseEscapedString(from: start) }
            if byte < 0x20 { throw JSONParseError(.controlCharacterInString, at: index) }
            if byte >= 0x80 { isASCII = false }
            index += 1
        }
        throw JSONParseError(.unexpectedEnd, at: index)
    }

    /// Advances over string content eight bytes at a time while none of them is a quote, a backslash, a control
    /// character or non-ASCII; `parseString` looks at the rest byte by byte.
    mutating func skipPlainASCII() {
        guard let base = bytes.baseAddress else { return }
        let raw = UnsafeRawPointer(base)
        while index + 8 <= bytes.count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            guard !ByteScan.hasNonASCII(word), !ByteScan.needsEscape(word) else { return }
            index += 8
        }
    }

    private func validatedString(_ slice: UnsafeBufferPointer<UInt8>, offset: Int) throws(JSONParseError) -> String {
        if let string = String(validating: slice, as: UTF8.self) { return string }
        throw JSONParseError(.invalidUTF8, at: offset + UTF8Validation.firstInvalidOffset(slice))
    }

    mutating func parseEscapedString(from start: Int) throws(JSONParseError) -> String {
        var buffer: [UInt8] = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while true {
            let byte = try peek()
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                let result: String? = buffer.withUnsafeBufferPointer { String(validating: $0, as: UTF8.self) }
                if let result { return result }
                let bad = buffer.withUnsafeBufferPointer { UTF8Validation.firstInvalidOffset($0) }
                throw JSONParseError(.invalidUTF8, at: start + bad)
            case UInt8(ascii: "\\"):
                index += 1
                try appendEscape(into: &buffer)
            case 0..<0x20:
                throw JSONParseError(.controlCharacterInString, at: index)
            default:
                buffer.append(byte)
                index += 1
            }
        }
    }

    private mutating func appendEscape(into buffer: inout [UInt8]) throws(JSONParseError) {
        let escapeStart = index - 1
        let byte = try peek()
        index += 1
        switch byte {
        case UInt8(ascii: "\""): buffer.append(0x22)
        case UInt8(ascii: "\\"): buffer.append(0x5C)
        case UInt8(ascii: "/"): buffer.append(0x2F)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try parseHex4(escapeStart: escapeStart))
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw JSONParseError(.invalidEscape, at: escapeStart) }
                index += 2
                let low = UInt32(try parseHex4(escapeStart: escapeStart))
                guard (0xDC00...0xDFFF).contains(low) else { throw JSONParseError(.invalidEscape, at: escapeStart) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw JSONParseError(.invalidEscape, at: escapeStart)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw JSONParseError(.invalidEscape, at: escapeStart) }
            UTF8Validation.append(unicode, to: &buffer)
        default:
            throw JSONParseError(.invalidEscape, at: escapeStart)
        }
    }

    private mutating func parseHex4(escapeStart: Int) throws(JSONParseError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw JSONParseError(.unexpectedEnd, at: bytes.count) }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONParseError(.invalidEscape, at: escapeStart)
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < bytes.count else { throw JSONParseError(.unexpectedEnd, at: index) }
        guard isDigit(bytes[index]) else { throw JSONParseError(.invalidNumber, at: index) }
        if bytes[index] == UInt8(ascii: "0"), index + 1 < bytes.count, isDigit(bytes[index + 1]) {
            throw JSONParseError(.invalidNumber, at: index)
        }
        // Accumulate as a negative magnitude so that Int64.min fits.
        var magnitude: Int64 = 0
        var overflow = false
        while index < bytes.count, isDigit(bytes[index]) {
            let digit = Int64(bytes[index] - UInt8(ascii: "0"))
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (next, o2) = times10.subtractingReportingOverflow(digit)
            overflow = overflow || o1 || o2
            magnitude = next
            index += 1
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            try consumeDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            try consumeDigits()
        }
        if isInteger {
            if overflow { throw JSONParseError(.numberOutOfRange, at: start) }
            if negative { return .int(magnitude) }
            if magnitude == Int64.min { throw JSONParseError(.numberOutOfRange, at: start) }
            return .int(-magnitude)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw JSONParseError(.numberOutOfRange, at: start) }
        return .double(value)
    }

    private mutating func consumeDigits() throws(JSONParseError) {
        guard index < bytes.count else { throw JSONParseError(.unexpectedEnd, at: index) }
        guard isDigit(bytes[index]) else { throw JSONParseError(.invalidNumber, at: index) }
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}

/// One member of an object being read.
struct Member {
    var key: String
    var value: JSONValue
}
