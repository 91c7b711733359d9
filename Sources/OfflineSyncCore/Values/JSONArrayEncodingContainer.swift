/// The unkeyed container of ``JSONValueEncoder``, filling in an array.
struct JSONArrayEncodingContainer: UnkeyedEncodingContainer {
    let encoder: JSONNodeEncoder
    let builder: JSONArrayBuilder

    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { builder.count }

    /// The key of the next element.
    private var nextKey: JSONCodingKey { JSONCodingKey(index: builder.count) }

    private var nextPath: [any CodingKey] { encoder.codingPath(appending: nextKey) }

    mutating func encodeNil() { builder.append(.null) }
    mutating func encode(_ value: Bool) { builder.append(.bool(value)) }
    mutating func encode(_ value: String) { builder.append(.string(value)) }
    mutating func encode(_ value: Double) throws { builder.append(try JSONScalarEncoding.double(value, at: nextPath)) }
    mutating func encode(_ value: Float) throws { builder.append(try JSONScalarEncoding.float(value, at: nextPath)) }
    mutating func encode(_ value: Int) throws { try integer(value) }
    mutating func encode(_ value: Int8) throws { try integer(value) }
    mutating func encode(_ value: Int16) throws { try integer(value) }
    mutating func encode(_ value: Int32) throws { try integer(value) }
    mutating func encode(_ value: Int64) throws { try integer(value) }
    mutating func encode(_ value: UInt) throws { try integer(value) }
    mutating func encode(_ value: UInt8) throws { try integer(value) }
    mutating func encode(_ value: UInt16) throws { try integer(value) }
    mutating func encode(_ value: UInt32) throws { try integer(value) }
    mutating func encode(_ value: UInt64) throws { try integer(value) }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        builder.append(try encoder.encodedChild(value, at: nextKey))
    }

    private func integer<Integer: FixedWidthInteger>(_ value: Integer) throws(EncodingError) {
        builder.append(try JSONScalarEncoding.integer(value, at: nextPath))
    }

    // MARK: Nested containers

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONObjectBuilder()
        let nestedEncoder = JSONNodeEncoder(parent: encoder, key: nextKey, content: .object(nested))
        builder.appendLater(.object(nested))
        return KeyedEncodingContainer(JSONObjectEncodingContainer<NestedKey>(encoder: nestedEncoder, builder: nested))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = JSONArrayBuilder()
        let nestedEncoder = JSONNodeEncoder(parent: encoder, key: nextKey, content: .array(nested))
        builder.appendLater(.array(nested))
        return JSONArrayEncodingContainer(encoder: nestedEncoder, builder: nested)
    }

    /// An encoder for the next element, written when this array is finished.
    mutating func superEncoder() -> any Encoder {
        let superEncoder = JSONNodeEncoder(parent: encoder, key: nextKey)
        builder.appendLater(.encoder(superEncoder))
        return superEncoder
    }
}
