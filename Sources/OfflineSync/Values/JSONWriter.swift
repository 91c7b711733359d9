/// Writes ``JSONValue``s as compact UTF-8 JSON text.
///
/// Strings are escaped as RFC 8259 requires (quote, backslash and control characters); everything else,
/// including non-ASCII text, is written as raw UTF-8. Doubles use the shortest form that reads back to the
/// same value and always carry a `.` or an exponent, so they read back as doubles. JSON has no NaN or
/// infinity: such doubles are written as `null` (the stores reject them before they get here).
public struct JSONWriter: Sendable {
    /// Whether object keys are written in sorted order (byte order of their UTF-8), for stable output.
    public var sortedKeys: Bool

    /// Creates a writer.
    public init(sortedKeys: Bool = false) {
        self.sortedKeys = sortedKeys
    }

    /// Appends the JSON text of `value` to `buffer`.
    public func write(_ value: JSONValue, into buffer: inout [UInt8]) {
        switch value {
        case .null: buffer.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(true): buffer.append(contentsOf: [0x74, 0x72, 0x75, 0x65])
        case .bool(false): buffer.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])
        case .int(let number): writeInteger(number, into: &buffer)
        case .double(let number): writeDouble(number, into: &buffer)
        case .string(let string): writeString(string, into: &buffer)
        case .array(let array):
            buffer.append(UInt8(ascii: "["))
            for (offset, element) in array.enumerated() {
                if offset > 0 { buffer.append(UInt8(ascii: ",")) }
                write(element, into: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
        case .object(let object):
            write(object, into: &buffer)
        }
    }

    /// Appends the JSON text of `object` to `buffer`.
    public func write(_ object: JSONObject, into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "{"))
        var first = true
        if sortedKeys {
            for key in object.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                if !first { buffer.append(UInt8(ascii: ",")) }
                first = false
                writeString(key, into: &buffer)
                buffer.append(UInt8(ascii: ":"))
                // The key comes from the object itself.
                if let value = object[key] { write(value, into: &buffer) }
            }
        } else {
            for (key, value) in object {
                if !first { buffer.append(UInt8(ascii: ",")) }
                first = false
                writeString(key, into: &buffer)
                buffer.append(UInt8(ascii: ":"))
                write(value, into: &buffer)
            }
        }
        buffer.append(UInt8(ascii: "}"))
    }

    /// Appends `string` as a quoted, escaped JSON string.
    public func writeString(_ string: String, into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var runStart = 0
            var next = 0
            while next < utf8.count {
                // Eight bytes at a time while none needs escaping.
                if next + 8 <= utf8.count, let base = utf8.baseAddress,
                   !ByteScan.needsEscape(UnsafeRawPointer(base).loadUnaligned(fromByteOffset: next, as: UInt64.self)) {
                    next += 8
                    continue
                }
                let index = next
                next += 1
                let byte = utf8[index]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                if runStart < index { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
                runStart = index + 1
                switch byte {
                case 0x22: buffer.append(contentsOf: [0x5C, 0x22])
                case 0x5C: buffer.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: buffer.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: buffer.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: buffer.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                case 0x08: buffer.append(contentsOf: [0x5C, UInt8(ascii: "b")])
                case 0x0C: buffer.append(contentsOf: [0x5C, UInt8(ascii: "f")])
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    buffer.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                }
            }
            if runStart < utf8.count { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    private func writeInteger(_ number: Int64, into buffer: inout [UInt8]) {
        JSONWriter.appendDecimal(number, into: &buffer)
    }

    /// Appends `value` in decimal (no padding, `-` when negative) without building a string.
    static func appendDecimal(_ value: Int64, into buffer: inout [UInt8]) {
        if value >= 0 && value < 10 {
            buffer.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)   // up to 20 digits, most significant last
        var count = 0
        withUnsafeMutableBytes(of: &digits) { scratch in
            repeat {
                scratch[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for position in stride(from: count - 1, through: 0, by: -1) { buffer.append(scratch[position]) }
        }
    }

    private func writeDouble(_ number: Double, into buffer: inout [UInt8]) {
        guard number.isFinite else {
            buffer.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
            return
        }
        // Swift's description is the shortest representation that round-trips ("1.0", "1e-07", "5e+20").
        buffer.append(contentsOf: number.description.utf8)
    }
}

extension JSONValue {
    /// The compact JSON text of this value as UTF-8 bytes.
    public func jsonBytes(sortedKeys: Bool = false) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(64)
        JSONWriter(sortedKeys: sortedKeys).write(self, into: &buffer)
        return buffer
    }

    /// The compact JSON text of this value.
    public func jsonString(sortedKeys: Bool = false) -> String {
        String(decoding: jsonBytes(sortedKeys: sortedKeys), as: UTF8.self)
    }
}
