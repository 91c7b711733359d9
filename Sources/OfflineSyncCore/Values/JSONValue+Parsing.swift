extension JSONValue {
    /// Parses one JSON value from UTF-8 bytes.
    /// - Throws: ``JSONParseError`` naming what is wrong and the byte offset.
    public init(parsing bytes: some Collection<UInt8>) throws(JSONParseError) {
        let direct = bytes.withContiguousStorageIfAvailable { JSONReader.result($0) }
        self = try (direct ?? [UInt8](bytes).withUnsafeBufferPointer { JSONReader.result($0) }).get()
    }

    /// Parses one JSON value from text.
    /// - Throws: ``JSONParseError``.
    public init(parsing text: String) throws(JSONParseError) {
        var text = text
        self = try text.withUTF8 { JSONReader.result($0) }.get()
    }
}
