/// Standard base64 (RFC 4648, section 4: `A–Z a–z 0–9 + /`, padded with `=`), which carries sealed bytes inside the
/// JSON text of journal records and the manifest.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Each byte's 6-bit value, or 0xFF for a byte outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, symbol) in alphabet.enumerated() { table[Int(symbol)] = UInt8(value) }
        return table
    }()

    /// The length of the text for `count` bytes.
    static func encodedLength(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// Appends the text of `bytes` to `buffer`.
    static func append(_ bytes: [UInt8], to buffer: inout [UInt8]) {
        let start = buffer.count
        let length = encodedLength(bytes.count)
        buffer.append(contentsOf: repeatElement(UInt8(ascii: "="), count: length))
        buffer.withUnsafeMutableBufferPointer { output in
            bytes.withUnsafeBufferPointer { input in
                var out = start
                var index = 0
                while index + 3 <= input.count {
                    let word = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                    output[out] = alphabet[Int(word >> 18)]
                    output[out + 1] = alphabet[Int(word >> 12 & 63)]
                    output[out + 2] = alphabet[Int(word >> 6 & 63)]
                    output[out + 3] = alphabet[Int(word & 63)]
                    index += 3
                    out += 4
                }
                let rest = input.count - index
                if rest > 0 {
                    let word = UInt32(input[index]) << 16 | (rest == 2 ? UInt32(input[index + 1]) << 8 : 0)
                    output[out] = alphabet[Int(word >> 18)]
                    output[out + 1] = alphabet[Int(word >> 12 & 63)]
                    if rest == 2 { output[out + 2] = alphabet[Int(word >> 6 & 63)] }
                }
            }
        }
    }

    /// The text of `bytes`.
    static func encode(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        append(bytes, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of a padded base64 text, or nil when it is not one (wrong length, a symbol outside the alphabet,
    /// misplaced padding, or padding bits that are not zero).
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        let symbols = Array(text)
        guard symbols.count % 4 == 0 else { return nil }
        var padding = 0
        if symbols.last == UInt8(ascii: "=") { padding += 1 }
        if symbols.count >= 2, symbols[symbols.count - 2] == UInt8(ascii: "=") { padding += 1 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(symbols.count / 4 * 3)
        var index = 0
        while index < symbols.count {
            var word: UInt32 = 0
            let isLast = index + 4 == symbols.count
            let used = isLast ? 4 - padding : 4
            for offset in 0..<4 {
                let value: UInt8
                if offset < used {
                    value = values[Int(symbols[index + offset])]
                    guard value != 0xFF else { return nil }
                } else {
                    value = 0
                }
                word = word << 6 | UInt32(value)
            }
            let produced = used - 1
            if produced < 3, word & (produced == 1 ? 0xFFFF : 0xFF) != 0 { return nil }
            bytes.append(UInt8(word >> 16))
            if produced >= 2 { bytes.append(UInt8(word >> 8 & 0xFF)) }
            if produced == 3 { bytes.append(UInt8(word & 0xFF)) }
            index += 4
        }
        return bytes
    }
}
