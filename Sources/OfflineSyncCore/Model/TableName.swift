/// The rules for table names: 1 to 255 characters from letters, digits, `_`, `-` and `.`, not starting with `.`
/// or `-`. Names starting with `__` are reserved for the sync engine's own tables.
public enum TableName {
    /// Whether `name` is a valid table name.
    public static func isValid(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard let first = utf8.first, utf8.count <= 255, first != UInt8(ascii: "."), first != UInt8(ascii: "-")
        else { return false }
        return utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x5F || byte == 0x2D || byte == 0x2E
        }
    }

    /// Whether `name` is reserved for the sync engine (starts with `__`).
    public static func isReserved(_ name: String) -> Bool { name.hasPrefix("__") }
}
