/// Word-at-a-time (SWAR) tests over eight bytes, used by the JSON reader and writer to skip plain string content
/// quickly. Each test is exact about whether some byte matches, whatever the other bytes hold.
enum ByteScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let high: UInt64 = 0x8080_8080_8080_8080

    /// Whether some byte of `word` is `"`, `\` or a control character (below 0x20): a byte JSON must escape.
    static func needsEscape(_ word: UInt64) -> Bool {
        let quote = word ^ (0x22 &* ones)
        let backslash = word ^ (0x5C &* ones)
        let found = ((word &- 0x20 &* ones) & ~word) | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
        return found & high != 0
    }

    /// Whether some byte of `word` is non-ASCII (0x80 or above).
    static func hasNonASCII(_ word: UInt64) -> Bool {
        word & high != 0
    }

    /// Whether some byte of `bytes` is `\`, eight bytes at a time.
    static func containsBackslash(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        var index = 0
        while index + 8 <= bytes.count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) ^ (0x5C &* ones)
            if (word &- ones) & ~word & high != 0 { return true }
            index += 8
        }
        while index < bytes.count {
            if bytes[index] == 0x5C { return true }
            index += 1
        }
        return false
    }
}
