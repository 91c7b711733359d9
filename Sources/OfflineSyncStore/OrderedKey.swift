package import OfflineSyncCore
/// Byte strings whose byte order is the total sort order of the local query rules, so that an index compares its
/// entries with `memcmp` and never decodes a value.
///
/// Two encodings compare as ``ValueComparison/sortOrder(_:_:)`` compares the values: byte by byte, a proper prefix
/// first. Each encoding is self-delimiting (no encoding is a proper prefix of another), so the encodings of several
/// values can be concatenated and still compare field by field.
///
/// | value | bytes |
/// |---|---|
/// | null (or missing) | `01` |
/// | Boolean | `02`, then `00` (false) or `01` (true) |
/// | number | `03`, then 8 bytes for the largest double not above the value (sign bit flipped for positives, all bits flipped for negatives, big-endian; NaN as zeros) and 2 bytes for the integer remainder (an `Int64` beyond 2^53 is not a double) |
/// | string | `04`, then its UTF-8 with `00` written as `00 FF`, then `00 00` |
/// | array | `05`, then each element's encoding, then `00` |
/// | object | `06`, then for each key in byte order `01`, the key as a string without its `04`, the value; then `00` |
package enum OrderedKey {
    /// Appends the encoding of `value` to `bytes`.
    package static func append(_ value: JSONValue, to bytes: inout [UInt8]) {
        switch value {
        case .null:
            bytes.append(0x01)
        case .bool(let flag):
            bytes.append(0x02)
            bytes.append(flag ? 0x01 : 0x00)
        case .int(let number):
            bytes.append(0x03)
            var floor = Double(number)
            if !(floor < 9_223_372_036_854_775_808.0) || Int64(floor) > number { floor = floor.nextDown }
            appendOrdered(floor, to: &bytes)
            let remainder = UInt16(truncatingIfNeeded: number &- Int64(floor))
            bytes.append(UInt8(remainder >> 8))
            bytes.append(UInt8(remainder & 0xFF))
        case .double(let number):
            bytes.append(0x03)
            appendOrdered(number == 0 ? 0 : number, to: &bytes)
            bytes.append(0x00)
            bytes.append(0x00)
        case .string(let text):
            bytes.append(0x04)
            appendEscaped(text, to: &bytes)
        case .array(let elements):
            bytes.append(0x05)
            for element in elements { append(element, to: &bytes) }
            bytes.append(0x00)
        case .object(let object):
            bytes.append(0x06)
            for key in object.keys.sorted(by: { ValueComparison.compareStrings($0, $1) < 0 }) {
                bytes.append(0x01)
                appendEscaped(key, to: &bytes)
                append(object[key] ?? .null, to: &bytes)
            }
            bytes.append(0x00)
        }
    }

    /// Appends the encoding of the value whose JSON text is `json`, or of null when the text is not one value. A
    /// string of printable ASCII without escapes is encoded straight from its text, without building it.
    package static func append(json: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        if json.count >= 2, json[0] == UInt8(ascii: "\""), json[json.count - 1] == UInt8(ascii: "\"") {
            let content = UnsafeBufferPointer(rebasing: json[1..<(json.count - 1)])
            // No NUL either: nothing to escape.
            if content.allSatisfy({ $0 >= 0x20 && $0 < 0x80 && $0 != UInt8(ascii: "\\") && $0 != UInt8(ascii: "\"") }) {
                bytes.append(0x04)
                bytes.append(contentsOf: content)
                bytes.append(0x00)
                bytes.append(0x00)
                return
            }
        }
        guard case .success(let value) = JSONReader.result(json) else { return append(.null, to: &bytes) }
        append(value, to: &bytes)
    }

    /// The first byte of the encodings of values of `value`'s kind, and the first byte after them: every value
    /// a comparison with `value` can match (same kind) encodes within this range.
    static func kindBounds(of value: JSONValue) -> (lower: UInt8, upper: UInt8) {
        switch value {
        case .null: return (0x01, 0x02)
        case .bool: return (0x02, 0x03)
        case .int, .double: return (0x03, 0x04)
        case .string: return (0x04, 0x05)
        case .array: return (0x05, 0x06)
        case .object: return (0x06, 0x07)
        }
    }

    /// The scalar value (null, Boolean, number or string) whose encoding starts at `position` in `bytes`, moving
    /// `position` past it; nil for an array or an object, or bytes that are no encoding. A number comes back as a
    /// double when it is one exactly, else as an integer: equal, in every comparison, to the value encoded.
    static func scalar(at position: inout Int, in bytes: UnsafeRawBufferPointer) -> JSONValue? {
        guard position < bytes.count else { return nil }
        let tag = bytes[position]
        position += 1
        switch tag {
        case 0x01:
            return .null
        case 0x02:
            guard position < bytes.count else { return nil }
            position += 1
            return .bool(bytes[position - 1] != 0)
        case 0x03:
            guard position + 10 <= bytes.count else { return nil }
            var bits: UInt64 = 0
            for offset in 0..<8 { bits = bits << 8 | UInt64(bytes[position + offset]) }
            let remainder = Int64(bytes[position + 8]) << 8 | Int64(bytes[position + 9])
            position += 10
            let number = Double(bitPattern: bits >> 63 == 1 ? bits & ~(1 << 63) : ~bits)
            guard remainder != 0 else { return .double(number) }
            return .int(Int64(number) &+ remainder)
        case 0x04:
            var utf8: [UInt8] = []
            while position + 1 < bytes.count {
                let byte = bytes[position]
                if byte == 0x00 {
                    position += 2
                    if bytes[position - 1] == 0x00 { return .string(String(decoding: utf8, as: UTF8.self)) }
                } else {
                    position += 1
                }
                utf8.append(byte)
            }
            return nil
        default:
            return nil
        }
    }

    /// The length of the encoding of the value that starts at `start` in `bytes` (as ``append(_:to:)`` wrote it),
    /// found from the tags and terminators alone.
    static func length(ofValueAt start: Int, in bytes: UnsafeRawBufferPointer) -> Int {
        var position = start
        skipValue(bytes, &position)
        return min(position, bytes.count) - start
    }

    private static func skipValue(_ bytes: UnsafeRawBufferPointer, _ position: inout Int) {
        guard position < bytes.count else { return }
        let tag = bytes[position]
        position += 1
        switch tag {
        case 0x02: position += 1
        case 0x03: position += 10
        case 0x04: skipEscaped(bytes, &position)
        case 0x05:
            while position < bytes.count, bytes[position] != 0x00 { skipValue(bytes, &position) }
            position += 1
        case 0x06:
            while position < bytes.count, bytes[position] == 0x01 {
                position += 1
                skipEscaped(bytes, &position)
                skipValue(bytes, &position)
            }
            position += 1
        default: break
        }
    }

    /// Skips an escaped string's bytes and its `00 00` end (`00 FF` is an escaped NUL).
    private static func skipEscaped(_ bytes: UnsafeRawBufferPointer, _ position: inout Int) {
        while position < bytes.count {
            let byte = bytes[position]
            position += byte == 0x00 ? 2 : 1
            if byte == 0x00, position - 1 >= bytes.count || bytes[position - 1] == 0x00 { return }
        }
    }

    /// Appends `slot` as 4 big-endian bytes: the last component of an index entry, which makes every entry distinct.
    static func append(slot: Int32, to bytes: inout [UInt8]) {
        let value = UInt32(bitPattern: slot)
        bytes.append(UInt8(value >> 24))
        bytes.append(UInt8((value >> 16) & 0xFF))
        bytes.append(UInt8((value >> 8) & 0xFF))
        bytes.append(UInt8(value & 0xFF))
    }

    /// Overwrites the last 4 bytes of `entry` with `slot`, as ``append(slot:to:)`` writes it.
    static func write(slot: Int32, endingAt entry: UnsafeMutableRawBufferPointer) {
        let value = UInt32(bitPattern: slot), count = entry.count
        entry[count - 4] = UInt8(value >> 24)
        entry[count - 3] = UInt8((value >> 16) & 0xFF)
        entry[count - 2] = UInt8((value >> 8) & 0xFF)
        entry[count - 1] = UInt8(value & 0xFF)
    }

    /// Reads the slot that ``append(slot:to:)`` wrote at the end of `entry`.
    static func slot(endingAt entry: UnsafeRawBufferPointer) -> Int32 {
        let count = entry.count
        let value = UInt32(entry[count - 4]) << 24 | UInt32(entry[count - 3]) << 16 | UInt32(entry[count - 2]) << 8 | UInt32(entry[count - 1])
        return Int32(bitPattern: value)
    }

    private static func appendOrdered(_ number: Double, to bytes: inout [UInt8]) {
        var bits = number.isNaN ? 0 : number.bitPattern
        if !number.isNaN { bits = bits >> 63 == 1 ? ~bits : bits | (1 << 63) }
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((bits >> UInt64(shift)) & 0xFF)) }
    }

    private static func appendEscaped(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            // Strings rarely hold a NUL: copy them whole, and escape byte by byte only when one does.
            if !utf8.contains(0) {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 {
                bytes.append(byte)
                if byte == 0 { bytes.append(0xFF) }
            }
        }
        bytes.append(0x00)
        bytes.append(0x00)
    }
}
