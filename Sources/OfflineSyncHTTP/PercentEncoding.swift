import OfflineSyncCore
/// Percent-encoding as the reference clients apply it to table-protocol URLs.
enum PercentEncoding {
    /// Encodes a query name or value as the iOS reference client does: the URL query-allowed set minus
    /// `! * ; : @ & = + / ? % # [ ]`, so letters, digits, `- . _ ~ $ ' ( ) ,` stay literal and everything else,
    /// space (`%20`), `:` (`%3A`) and `+` (`%2B`) included, is `%XX` of its UTF-8 bytes.
    static func queryComponent(_ text: String) -> String {
        encode(text) { isUnreserved($0) || $0 == 0x24 || $0 == 0x27 || $0 == 0x28 || $0 == 0x29 || $0 == 0x2C }
    }

    /// Encodes one path segment (a table name or an id) as `Uri.EscapeDataString` does: only letters, digits and
    /// `- . _ ~` stay literal, so `/`, `?`, `#`, `%` and spaces cannot change the path.
    static func pathSegment(_ text: String) -> String {
        encode(text, keeping: isUnreserved)
    }

    /// Encodes only what can never appear literally in a URL (spaces, quotes, `<`, `>`, non-ASCII, …), keeping
    /// existing `%XX` escapes and the reserved characters: for links a server wrote.
    static func invalidURLCharacters(_ text: String) -> String {
        encode(text) { byte in isUnreserved(byte) || byte == 0x25 || reserved.contains(byte) }
    }

    /// RFC 3986 reserved characters.
    private static let reserved = Set(":/?#[]@!$&'()*+,;=".utf8)

    static func isUnreserved(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
    }

    private static func encode(_ text: String, keeping keep: (UInt8) -> Bool) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if keep(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
