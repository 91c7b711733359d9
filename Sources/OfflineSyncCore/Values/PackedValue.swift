/// A compact binary form of one JSON value, as the stores hold an item's values in memory (``PackedObject``): a tag
/// byte, then the value's bytes. Strings of three common shapes take fewer bytes than their text: an upper- or
/// lower-case UUID (16 bytes), an ISO 8601 UTC timestamp with milliseconds (`2026-11-29T09:29:49.062Z`, 8 bytes),
/// and lower-case hex digits (half a byte a digit). Every string gives back exactly its UTF-8 bytes; one that only
/// nearly has such a shape (mixed case, no milliseconds, a 13th month) is kept as it is.
///
/// Decoding gives the value the JSON reader gives for the value's text as `JSONWriter` writes it: an integer is an
/// `int`, a finite double a `double` with the same bits, a non-finite double `null` (which is how it is written).
package enum PackedValue {
    static let null: UInt8 = 0
    static let `false`: UInt8 = 1
    static let `true`: UInt8 = 2
    /// A varint length, then the UTF-8 bytes.
    static let string: UInt8 = 3
    /// 16 bytes.
    static let upperUUID: UInt8 = 4
    static let lowerUUID: UInt8 = 5
    /// 8 bytes: milliseconds since 1970 (little-endian, two's complement).
    static let timestamp: UInt8 = 6
    /// A digit count from 1 to 32, then two digits a byte (the last byte's low half zero when the count is odd).
    static let lowerHex: UInt8 = 7
    /// A zigzag varint.
    static let int: UInt8 = 8
    /// 8 bytes: the IEEE bits.
    static let double: UInt8 = 9
    /// A varint length, then the value's JSON text (arrays and objects).
    static let json: UInt8 = 10

    // MARK: Writing

    /// Appends the packed form of `value`.
    static func append(_ value: JSONValue, to buffer: inout [UInt8]) {
        switch value {
        case .null: buffer.append(null)
        case .bool(let flag): buffer.append(flag ? Self.true : Self.false)
        case .int(let number):
            buffer.append(int)
            appendVarint(UInt64(bitPattern: (number << 1) ^ (number >> 63)), to: &buffer)
        case .double(let number):
            // JSONWriter writes a non-finite double as null.
            guard number.isFinite else { return buffer.append(null) }
            buffer.append(double)
            appendBytes(of: number.bitPattern.littleEndian, to: &buffer)
        case .string(let text):
            // A native string lends its bytes without a copy of the string.
            if text.utf8.withContiguousStorageIfAvailable({ appendString($0, to: &buffer) }) == nil {
                var text = text
                text.withUTF8 { appendString($0, to: &buffer) }
            }
        case .array, .object:
            var text: [UInt8] = []
            JSONWriter().write(value, into: &text)
            buffer.append(json)
            appendVarint(UInt64(text.count), to: &buffer)
            buffer.append(contentsOf: text)
        }
    }

    /// Appends the packed form of the string whose UTF-8 bytes are `utf8`.
    static func appendString(_ utf8: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8]) {
        if utf8.count == 36, let (high, low, upper) = uuid(utf8) {
            buffer.append(upper ? upperUUID : lowerUUID)
            appendBytes(of: high.bigEndian, to: &buffer)
            appendBytes(of: low.bigEndian, to: &buffer)
        } else if utf8.count == 24, let milliseconds = TimestampText.milliseconds(utf8) {
            buffer.append(timestamp)
            appendBytes(of: milliseconds.littleEndian, to: &buffer)
        } else if (1...32).contains(utf8.count), isLowerHex(utf8) {
            buffer.append(lowerHex)
            buffer.append(UInt8(utf8.count))
            var position = 0
            while position < utf8.count {
                let high = hexValue(utf8[position])
                let low = position + 1 < utf8.count ? hexValue(utf8[position + 1]) : 0
                buffer.append(high << 4 | low)
                position += 2
            }
        } else {
            buffer.append(string)
            appendVarint(UInt64(utf8.count), to: &buffer)
            buffer.append(contentsOf: utf8)
        }
    }

    /// Appends the 8 bytes of `value` as they lie in memory.
    private static func appendBytes<Value: FixedWidthInteger>(of value: Value, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: value) { buffer.append(contentsOf: $0.assumingMemoryBound(to: UInt8.self)) }
    }

    package static func appendVarint(_ value: UInt64, to buffer: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            buffer.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        buffer.append(UInt8(value))
    }

    /// Each byte's two hex digits as they lie in memory (the high digit first), lower- and upper-case.
    private static let lowerHexPairs = hexPairs(letters: UInt8(ascii: "a"))
    private static let upperHexPairs = hexPairs(letters: UInt8(ascii: "A"))

    private static func hexPairs(letters: UInt8) -> [UInt16] {
        (0...255).map { byte in
            let digits = (JSONWriter.hexDigit(UInt8(byte) >> 4, letters: letters), JSONWriter.hexDigit(UInt8(byte) & 0xF, letters: letters))
            return withUnsafeBytes(of: digits) { $0.load(as: UInt16.self) }
        }
    }

    /// What each byte is as a hex digit: bit 0 a digit `0`-`9`, bit 1 a lower-case letter `a`-`f`, bit 2 an
    /// upper-case `A`-`F`.
    private static let hexClass: [UInt8] = (0...255).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): 1
        case UInt8(ascii: "a")...UInt8(ascii: "f"): 2
        case UInt8(ascii: "A")...UInt8(ascii: "F"): 4
        default: 0
        }
    }

    /// The value of a hex digit (of either case; the caller has checked it is one).
    private static func hexValue(_ byte: UInt8) -> UInt8 {
        byte <= UInt8(ascii: "9") ? byte &- UInt8(ascii: "0") : (byte | 0x20) &- UInt8(ascii: "a") &+ 10
    }

    private static func isLowerHex(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        hexClass.withUnsafeBufferPointer { table in utf8.allSatisfy { table[Int($0)] & 3 != 0 } }
    }

    /// The 128 bits of a UUID written `8-4-4-4-12` in one case, and whether that case is upper (a UUID with no
    /// letter counts as upper-case); nil for any other text.
    private static func uuid(_ utf8: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64, Bool)? {
        guard utf8[8] == UInt8(ascii: "-"), utf8[13] == UInt8(ascii: "-"), utf8[18] == UInt8(ascii: "-"),
              utf8[23] == UInt8(ascii: "-") else { return nil }
        return hexClass.withUnsafeBufferPointer { table -> (UInt64, UInt64, Bool)? in
            var classes: UInt8 = 0
            var high: UInt64 = 0, low: UInt64 = 0
            for position in 0..<36 where position != 8 && position != 13 && position != 18 && position != 23 {
                let byte = utf8[position]
                let kind = table[Int(byte)]
                if kind == 0 { return nil }
                classes |= kind
                let digit = UInt64(hexValue(byte))
                if position < 19 { high = high << 4 | digit } else { low = low << 4 | digit }
            }
            // Letters of both cases: not a form that gives its bytes back.
            guard classes & 6 != 6 else { return nil }
            return (high, low, classes & 2 == 0)
        }
    }

    // MARK: Reading

    /// The value packed at `offset` in `bytes`, with `offset` moved past it; nil when the bytes are not a packed value.
    static func read(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) -> JSONValue? {
        guard offset < bytes.count else { return nil }
        let tag = bytes[offset]
        offset += 1
        switch tag {
        case null: return .null
        case Self.false: return .bool(false)
        case Self.true: return .bool(true)
        case int:
            guard let raw = readVarint(bytes, at: &offset) else { return nil }
            return .int(Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1))
        case double:
            guard offset + 8 <= bytes.count else { return nil }
            let bits = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
            return .double(Double(bitPattern: bits))
        case json:
            guard let length = readVarint(bytes, at: &offset), offset + Int(length) <= bytes.count else { return nil }
            let text = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Int(length))])
            offset += Int(length)
            guard case .success(let value) = JSONReader.result(text.assumingMemoryBound(to: UInt8.self)) else { return nil }
            return value
        default:
            offset -= 1
            return string(bytes, at: &offset).map(JSONValue.string)
        }
    }

    /// The string packed at `offset` in `bytes` (in any of its forms), with `offset` moved past it; nil, `offset`
    /// unmoved, when no string is packed there.
    static func string(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) -> String? {
        guard offset < bytes.count, let length = textLength(bytes, at: offset) else { return nil }
        return String(unsafeUninitializedCapacity: length) { buffer in
            writeText(bytes, at: &offset, into: UnsafeMutableRawBufferPointer(buffer))
        }
    }

    /// What `body` answers for the UTF-8 bytes of the string packed at `offset` in `bytes`: lent in place, or written
    /// out on the stack from a shorter form; builds no string. Nil when no string is packed there.
    static func withUTF8(_ bytes: UnsafeRawBufferPointer, at offset: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Bool?) -> Bool? {
        guard offset < bytes.count, let length = textLength(bytes, at: offset) else { return nil }
        if bytes[offset] == string {
            var start = offset + 1
            _ = readVarint(bytes, at: &start)
            return body(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + length)]).assumingMemoryBound(to: UInt8.self))
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { text in
            var position = offset
            _ = writeText(bytes, at: &position, into: UnsafeMutableRawBufferPointer(text))
            return body(UnsafeBufferPointer(text))
        }
    }

    /// Moves `offset` past the value packed there (nil when the bytes are not a packed value).
    static func skip(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) -> Void? {
        guard offset < bytes.count else { return nil }
        let tag = bytes[offset]
        offset += 1
        switch tag {
        case null, Self.false, Self.true: break
        case int: guard readVarint(bytes, at: &offset) != nil else { return nil }
        case double, timestamp: offset += 8
        case upperUUID, lowerUUID: offset += 16
        case lowerHex:
            guard offset < bytes.count else { return nil }
            offset += 1 + (Int(bytes[offset]) + 1) / 2
        case string, json:
            guard let length = readVarint(bytes, at: &offset) else { return nil }
            offset += Int(length)
        default: return nil
        }
        return offset <= bytes.count ? () : nil
    }

    /// How many bytes the JSON text of a value packed in `count` bytes can take at most: six a byte (a string whose
    /// every byte is a control character written `\u00XX`; every other form writes fewer).
    static func jsonLengthBound(packedCount count: Int) -> Int {
        6 * count
    }

    /// Writes the JSON text of the value packed at `offset` (as `JSONWriter` writes the decoded value) at the start
    /// of `output`, which has room for ``jsonLengthBound(packedCount:)`` of the value's bytes, and moves `offset`
    /// past it; returns how many bytes it wrote, nil when the bytes are not a packed value. Builds no string or
    /// value on the way.
    static func writeJSON(_ bytes: UnsafeRawBufferPointer, at offset: inout Int, to output: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        guard offset < bytes.count else { return nil }
        let tag = bytes[offset]
        switch tag {
        case null, Self.false, Self.true:
            offset += 1
            return output.initialize(fromContentsOf: (tag == null ? "null" : tag == Self.true ? "true" : "false").utf8)
        case int:
            offset += 1
            guard let raw = readVarint(bytes, at: &offset) else { return nil }
            return JSONWriter.writeDecimal(Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1), to: output)
        case double:
            guard case .double(let number)? = read(bytes, at: &offset) else { return nil }
            return JSONWriter.writeDouble(number, to: output)
        case json:
            offset += 1
            guard let length = readVarint(bytes, at: &offset), offset + Int(length) <= bytes.count else { return nil }
            let text = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Int(length))])
            offset += text.count
            UnsafeMutableRawBufferPointer(output).copyMemory(from: text)
            return text.count
        case string:
            var position = offset + 1
            guard let length = readVarint(bytes, at: &position), position + Int(length) <= bytes.count else { return nil }
            offset = position + Int(length)
            output[0] = UInt8(ascii: "\"")
            let utf8 = UnsafeRawBufferPointer(rebasing: bytes[position..<offset])
            let written = JSONWriter.writeEscaped(utf8, to: UnsafeMutableBufferPointer(rebasing: output[1...]))
            output[written + 1] = UInt8(ascii: "\"")
            return written + 2
        default:
            guard let length = textLength(bytes, at: offset) else { return nil }
            output[0] = UInt8(ascii: "\"")
            _ = writeText(bytes, at: &offset, into: UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(output)[1...]))
            output[length + 1] = UInt8(ascii: "\"")
            return length + 2
        }
    }

    /// The UTF-8 length of the string packed at `offset` (its tag), or nil when it is not a string.
    private static func textLength(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int? {
        switch bytes[offset] {
        case upperUUID, lowerUUID: return offset + 17 <= bytes.count ? 36 : nil
        case timestamp: return offset + 9 <= bytes.count ? 24 : nil
        case lowerHex:
            guard offset + 1 < bytes.count else { return nil }
            let digits = Int(bytes[offset + 1])
            return offset + 2 + (digits + 1) / 2 <= bytes.count ? digits : nil
        case string:
            var position = offset + 1
            guard let length = readVarint(bytes, at: &position), position + Int(length) <= bytes.count else { return nil }
            return Int(length)
        default: return nil
        }
    }

    /// Writes the UTF-8 bytes of the string packed at `offset` (its tag; ``textLength(_:at:)`` checked it) into
    /// `output`, which is exactly that long, moves `offset` past it and returns the length.
    private static func writeText(_ bytes: UnsafeRawBufferPointer, at offset: inout Int, into output: UnsafeMutableRawBufferPointer) -> Int {
        let tag = bytes[offset]
        offset += 1
        switch tag {
        case upperUUID, lowerUUID:
            // Two digits a byte at a time, from a table of each byte's two digits in the case of the UUID.
            (tag == upperUUID ? upperHexPairs : lowerHexPairs).withUnsafeBufferPointer { pairs in
                var written = 0
                for position in 0..<16 {
                    if position == 4 || position == 6 || position == 8 || position == 10 {
                        output[written] = UInt8(ascii: "-")
                        written += 1
                    }
                    output.storeBytes(of: pairs[Int(bytes[offset + position])], toByteOffset: written, as: UInt16.self)
                    written += 2
                }
            }
            offset += 16
            return 36
        case timestamp:
            let milliseconds = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self))
            offset += 8
            TimestampText.write(milliseconds, into: output)
            return 24
        case lowerHex:
            let count = Int(bytes[offset])
            offset += 1
            for position in 0..<count {
                let byte = bytes[offset + position / 2]
                output[position] = JSONWriter.hexDigit(position % 2 == 0 ? byte >> 4 : byte & 0xF)
            }
            offset += (count + 1) / 2
            return count
        default:
            let length = Int(readVarint(bytes, at: &offset) ?? 0)
            output.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]))
            offset += length
            return length
        }
    }

    package static func readVarint(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) -> UInt64? {
        var value: UInt64 = 0, shift: UInt64 = 0
        while offset < bytes.count, shift < 64 {
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }
}
