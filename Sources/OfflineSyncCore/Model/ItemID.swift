/// The rules for item ids: 1 to 255 characters, not only spaces and tabs, not `.` or `..`, and none of
/// `+ ? \` " / \\` nor control characters (U+0000–U+001F, U+007F–U+009F).
public enum ItemID {
    /// Why `id` breaks the rules, or nil when it is valid.
    public static func violation(in id: String) -> String? {
        // Printable ASCII, the common case, is decided in one pass over the bytes, each a character.
        if let verdict = id.utf8.withContiguousStorageIfAvailable(printableASCIIVerdict), let verdict { return verdict }
        return generalViolation(in: id)
    }

    /// For an id of printable ASCII (U+0020–U+007E), `.some` of what ``violation(in:)`` says; nil for any other id.
    private static func printableASCIIVerdict(_ bytes: UnsafeBufferPointer<UInt8>) -> String?? {
        var onlySpaces = true
        var forbidden: UInt8?
        for byte in bytes {
            guard byte >= 0x20, byte < 0x7F else { return nil }
            if byte != 0x20 { onlySpaces = false }
            switch byte {
            case 0x2B, 0x3F, 0x60, 0x22, 0x2F, 0x5C: if forbidden == nil { forbidden = byte }
            default: break
            }
        }
        if bytes.isEmpty { return .some("it is empty") }
        if bytes.count > 255 { return .some("it is longer than 255 characters") }
        if bytes.allSatisfy({ $0 == 0x2E }) && bytes.count <= 2 { return .some("it is \"\(String(decoding: bytes, as: UTF8.self))\"") }
        if onlySpaces { return .some("it is only whitespace") }
        if let forbidden { return .some("it contains the character \(Unicode.Scalar(forbidden))") }
        return .some(nil)
    }

    /// ``violation(in:)`` for any id, scalar by scalar.
    static func generalViolation(in id: String) -> String? {
        let count = id.count
        if count == 0 { return "it is empty" }
        if count > 255 { return "it is longer than 255 characters" }
        if id == "." || id == ".." { return "it is \"\(id)\"" }
        if id.unicodeScalars.allSatisfy({ $0 == " " || $0 == "\t" }) { return "it is only whitespace" }
        for scalar in id.unicodeScalars {
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F: return "it contains the control character U+\(String(scalar.value, radix: 16, uppercase: true))"
            case 0x2B, 0x3F, 0x60, 0x22, 0x2F, 0x5C: return "it contains the character \(scalar)"
            default: continue
            }
        }
        return nil
    }

    /// Whether `id` is a valid item id.
    public static func isValid(_ id: String) -> Bool { violation(in: id) == nil }

    /// The key ids are matched by: ids that differ only in case share a key, and nothing else is folded.
    ///
    /// Swift's `String` equality treats canonically equivalent text as equal (`é` and `e` + U+0301), which would
    /// merge two distinct ids. So a key that is not plain ASCII (after lower-casing) writes every byte outside
    /// U+0020–U+007F as U+0001 plus two hex digits: an ASCII key, compared byte for byte. U+0001 cannot occur in a
    /// valid id and is itself escaped, so the mapping is one-to-one. An id that is already lower-case printable ASCII
    /// is its own key (no copy is made), which is the common case.
    package static func key(_ id: String) -> String {
        // One pass over the UTF-8 decides: printable ASCII without upper case is its own key, printable ASCII is
        // lower-cased (the standard library's ASCII path), anything else is escaped.
        // Whether the id has an upper-case letter; nil when it is not printable ASCII.
        let hasUpperCase: Bool? = id.utf8.withContiguousStorageIfAvailable { bytes in
            var found = false
            for byte in bytes {
                if byte < 0x20 || byte >= 0x80 { return nil }
                if byte &- 0x41 < 26 { found = true }
            }
            return found
        } ?? nil
        switch hasUpperCase {
        case false?: return id
        case true?: return id.lowercased()
        case nil: return escapedKey(id)
        }
    }

    /// Whether ``key(_:)`` of `id` is `key`, decided without building the key when `id` is printable ASCII.
    package static func hasKey(_ id: String, _ key: String) -> Bool {
        var idText = id
        var keyText = key
        let same = idText.withUTF8 { id in keyText.withUTF8 { key in sameKey(printableASCII: key, id) } }
        return same ?? (Self.key(id) == key)
    }

    /// Whether the ids `first` and `second` have the same ``key(_:)``, decided without building the keys when both
    /// are printable ASCII.
    package static func haveSameKey(_ first: String, _ second: String) -> Bool {
        var firstText = first
        var secondText = second
        let same = firstText.withUTF8 { one in secondText.withUTF8 { other in sameKey(printableASCII: one, other) } }
        return same ?? (key(first) == key(second))
    }

    /// Whether the ids or keys whose UTF-8 is `first` and `second` have the same ``key(_:)``, when both are
    /// printable ASCII (U+0020–U+007F), whose key is the text lower-cased; nil when one of them is not.
    package static func sameKey(printableASCII first: UnsafeBufferPointer<UInt8>, _ second: UnsafeBufferPointer<UInt8>) -> Bool? {
        var same = first.count == second.count
        for position in 0..<min(first.count, second.count) {
            let one = first[position], other = second[position]
            guard one >= 0x20, one < 0x80, other >= 0x20, other < 0x80 else { return nil }
            if one != other && (one | 0x20 != other | 0x20 || (one | 0x20) &- 0x61 >= 26) { same = false }
        }
        if !same {
            // The shorter text's bytes were all checked; the longer one's rest must be printable ASCII too.
            let longer = first.count > second.count ? first : second
            for byte in longer[min(first.count, second.count)...] where byte < 0x20 || byte >= 0x80 { return nil }
        }
        return same
    }

    /// ``key(_:)`` of an id with a byte outside printable ASCII (or without contiguous UTF-8).
    private static func escapedKey(_ id: String) -> String {
        let lower = id.lowercased()
        if isPrintableASCII(lower) { return lower }
        let hex = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lower.utf8.count * 3)
        for byte in lower.utf8 {
            if byte >= 0x20 && byte < 0x80 {
                bytes.append(byte)
            } else {
                bytes.append(0x01)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func isPrintableASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x80 }
    }
}
