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
                Self.withScratch { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<Self.writeEscape(of: byte, to: $0)])) }
            }
            if runStart < utf8.count { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    private func writeInteger(_ number: Int64, into buffer: inout [UInt8]) {
        JSONWriter.appendDecimal(number, into: &buffer)
    }

    /// Appends `value` in decimal (no padding, `-` when negative) without building a string.
    package static func appendDecimal(_ value: Int64, into buffer: inout [UInt8]) {
        if value >= 0 && value < 10 {
            buffer.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        withScratch { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<writeDecimal(value, to: $0)])) }
    }

    /// Writes `value` in decimal (no padding, `-` when negative) at the start of `output`, which has room for 20
    /// bytes; returns how many it wrote.
    static func writeDecimal(_ value: Int64, to output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var written = 0
        if value < 0 {
            output[0] = UInt8(ascii: "-")
            written = 1
        }
        var magnitude = value.magnitude
        var rest = magnitude / 10
        while rest > 0 {
            written += 1
            rest /= 10
        }
        for place in stride(from: written, through: value < 0 ? 1 : 0, by: -1) {
            output[place] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        }
        return written + 1
    }

    /// Writes the UTF-8 bytes `utf8` escaped as inside a JSON string (as ``writeString(_:into:)`` does, without
    /// the quotes) at the start of `output`, which has room for six times their count; returns how many bytes it
    /// wrote.
    static func writeEscaped(_ utf8: UnsafeRawBufferPointer, to output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var written = 0
        var runStart = 0
        var next = 0
        func copyRun(to end: Int) {
            UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(output)[written...])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: utf8[runStart..<end]))
            written += end - runStart
        }
        while next < utf8.count {
            // Eight bytes at a time while none needs escaping.
            if next + 8 <= utf8.count, !ByteScan.needsEscape(utf8.loadUnaligned(fromByteOffset: next, as: UInt64.self)) {
                next += 8
                continue
            }
            let byte = utf8[next]
            next += 1
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
            copyRun(to: next - 1)
            runStart = next
            written += writeEscape(of: byte, to: UnsafeMutableBufferPointer(rebasing: output[written...]))
        }
        copyRun(to: utf8.count)
        return written
    }

    /// Writes the escape of `byte` (a quote, a backslash or a control character) at the start of `output`, which
    /// has room for six bytes; returns how many it wrote.
    private static func writeEscape(of byte: UInt8, to output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        output[0] = 0x5C
        switch byte {
        case 0x22, 0x5C: output[1] = byte
        case 0x0A: output[1] = UInt8(ascii: "n")
        case 0x0D: output[1] = UInt8(ascii: "r")
        case 0x09: output[1] = UInt8(ascii: "t")
        case 0x08: output[1] = UInt8(ascii: "b")
        case 0x0C: output[1] = UInt8(ascii: "f")
        default:
            (output[1], output[2], output[3]) = (UInt8(ascii: "u"), 0x30, 0x30)
            output[4] = hexDigit(byte >> 4)
            output[5] = hexDigit(byte & 0xF)
            return 6
        }
        return 2
    }

    /// The hex digit of `value` (below 16), its letters from `letters` (`a` or `A`) on.
    @inline(__always)
    static func hexDigit(_ value: UInt8, letters: UInt8 = UInt8(ascii: "a")) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") &+ value : letters &+ (value &- 10)
    }

    private func writeDouble(_ number: Double, into buffer: inout [UInt8]) {
        Self.withScratch { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<Self.writeDouble(number, to: $0)])) }
    }

    /// Writes `number` as ``write(_:into:)`` does at the start of `output`, which has room for 32 bytes; returns how
    /// many it wrote.
    static func writeDouble(_ number: Double, to output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        // JSON has no NaN or infinity.
        guard number.isFinite else {
            _ = output.initialize(fromContentsOf: "null".utf8)
            return 4
        }
        // Swift's description is the shortest representation that round-trips ("1.0", "1e-07", "5e+20"), at most
        // 24 bytes ("-2.2250738585072014e-308").
        return output.initialize(fromContentsOf: number.description.utf8)
    }

    /// Calls `body` with 32 bytes of scratch space on the stack.
    private static func withScratch(_ body: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        var scratch: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &scratch) { body($0.bindMemory(to: UInt8.self)) }
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
