/// The keyed container of ``JSONValueEncoder``, filling in an object.
struct JSONObjectEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: JSONNodeEncoder
    let builder: JSONObjectBuilder

    var codingPath: [any CodingKey] { encoder.codingPath }

    private func path(_ key: Key) -> [any CodingKey] {
        encoder.codingPath(appending: key)
    }

    mutating func encodeNil(forKey key: Key) { builder.set(.null, for: key.stringValue) }
    mutating func encode(_ value: Bool, forKey key: Key) { builder.set(.bool(value), for: key.stringValue) }
    mutating func encode(_ value: String, forKey key: Key) { builder.set(.string(value), for: key.stringValue) }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        builder.set(try JSONScalarEncoding.double(value, at: path(key)), for: key.stringValue)
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        builder.set(try JSONScalarEncoding.float(value, at: path(key)), for: key.stringValue)
    }

    mutating func encode(_ value: Int, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        builder.set(try encoder.encodedChild(value, at: key), for: key.stringValue)
    }

    private func integer<Integer: FixedWidthInteger>(_ value: Integer, _ key: Key) throws(EncodingError) {
        builder.set(try JSONScalarEncoding.integer(value, at: path(key)), for: key.stringValue)
    }

    // MARK: Nested containers

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                        forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = builder.nestedObject(for: key.stringValue)
        let nestedEncoder = JSONNodeEncoder(parent: encoder, key: key, content: .object(nested))
        return KeyedEncodingContainer(JSONObjectEncodingContainer<NestedKey>(encoder: nestedEncoder, builder: nested))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = builder.nestedArray(for: key.stringValue)
        return JSONArrayEncodingContainer(encoder: JSONNodeEncoder(parent: encoder, key: key, content: .array(nested)),
                                          builder: nested)
    }

    /// An encoder for the member `"super"`, written when this object is finished.
    mutating func superEncoder() -> any Encoder {
        superEncoder(at: JSONCodingKey.super)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(at: key)
    }

    private func superEncoder(at key: any CodingKey) -> any Encoder {
        let superEncoder = JSONNodeEncoder(parent: encoder, key: key)
        builder.setLater(superEncoder, for: key.stringValue)
        return superEncoder
    }
}
