/// UTF-8 helpers the JSON reader and writer share.
enum UTF8Validation {
    /// The offset of the first byte that starts an invalid UTF-8 sequence, or `bytes.count` if all is valid.
    static func firstInvalidOffset(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length: Int
            var minimum: UInt32 = 0
            var scalar: UInt32
            switch lead {
            case 0x00...0x7F: index += 1; continue
            case 0xC2...0xDF: length = 2; scalar = UInt32(lead & 0x1F); minimum = 0x80
            case 0xE0...0xEF: length = 3; scalar = UInt32(lead & 0x0F); minimum = 0x800
            case 0xF0...0xF4: length = 4; scalar = UInt32(lead & 0x07); minimum = 0x10000
            default: return index
            }
            guard index + length <= bytes.count else { return index }
            for offset in 1..<length {
                let byte = bytes[index + offset]
                guard byte & 0xC0 == 0x80 else { return index }
                scalar = scalar << 6 | UInt32(byte & 0x3F)
            }
            if scalar < minimum || scalar > 0x10FFFF || (0xD800...0xDFFF).contains(scalar) { return index }
            index += length
        }
        return bytes.count
    }

    /// Appends the UTF-8 encoding of `scalar`.
    static func append(_ scalar: Unicode.Scalar, to buffer: inout [UInt8]) {
        let value = scalar.value
        switch value {
        case 0..<0x80:
            buffer.append(UInt8(value))
        case 0x80..<0x800:
            buffer.append(UInt8(0xC0 | (value >> 6)))
            buffer.append(UInt8(0x80 | (value & 0x3F)))
        case 0x800..<0x10000:
            buffer.append(UInt8(0xE0 | (value >> 12)))
            buffer.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
            buffer.append(UInt8(0x80 | (value & 0x3F)))
        default:
            buffer.append(UInt8(0xF0 | (value >> 18)))
            buffer.append(UInt8(0x80 | ((value >> 12) & 0x3F)))
            buffer.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
            buffer.append(UInt8(0x80 | (value & 0x3F)))
        }
    }
}
