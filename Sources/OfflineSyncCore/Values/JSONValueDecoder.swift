/// Decodes `Decodable` values straight from a ``JSONValue`` tree, with no JSON text in between, as `JSONDecoder` decodes
/// the same tree written as JSON text by ``JSONWriter``.
///
/// Dates read from any ISO 8601 date-time ``Timestamp/date(from:)`` accepts, `Data` from base64, `URL` from its
/// string, `Decimal` from the number's text, numbers as ``JSONScalarDecoding`` describes. Errors are `DecodingError`s
/// with the coding path of the value at fault, worded as `JSONDecoder` words them (where `JSONDecoder` reports a
/// number no Swift type holds with an empty path, this decoder gives the path).
package struct JSONValueDecoder: Sendable {
    package init() {}

    /// The `Value` that `value` decodes to.
    package func decode<Value: Decodable>(_ type: Value.Type, from value: JSONValue) throws -> Value {
        try JSONNodeDecoder(value: value, parent: nil, key: nil).decodeValue(Value.self)
    }
}

/// The `Decoder` of ``JSONValueDecoder`` at one value of the tree, which is also that value's single-value container.
/// Its parent and key make the coding path, built only for an error.
final class JSONNodeDecoder: CodingPathNode, Decoder, SingleValueDecodingContainer {
    let value: JSONValue
    private let parent: JSONNodeDecoder?
    private let key: (any CodingKey)?

    init(value: JSONValue, parent: JSONNodeDecoder?, key: (any CodingKey)?) {
        self.value = value
        self.parent = parent
        self.key = key
    }

    var nodeKey: (any CodingKey)? { key }
    var parentNode: JSONNodeDecoder? { parent }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw DecodingError.containerMismatch([String: Any].self, "keyed", found: value, at: codingPath)
        }
        return KeyedDecodingContainer(JSONObjectDecodingContainer(decoder: self, members: members))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw DecodingError.containerMismatch([Any].self, "unkeyed", found: value, at: codingPath)
        }
        return JSONArrayDecodingContainer(decoder: self, elements: elements)
    }

    func singleValueContainer() -> any SingleValueDecodingContainer {
        self
    }

    /// This decoder's value as `Value`: a type read without its `init(from:)` (``directValue(_:from:at:)``),
    /// or what `Value.init(from:)` makes of this decoder.
    func decodeValue<Value: Decodable>(_ type: Value.Type) throws -> Value {
        if let special = try Self.directValue(Value.self, from: value, at: codingPath) { return special }
        return try Value(from: self)
    }

    /// `child`, the value at `key` below this one, as `Value`.
    func decodeChild<Value: Decodable>(_ type: Value.Type, from child: JSONValue, at key: any CodingKey) throws -> Value {
        if let special = try Self.directValue(Value.self, from: child, at: codingPath(appending: key)) { return special }
        return try Value(from: JSONNodeDecoder(value: child, parent: self, key: key))
    }

    // MARK: SingleValueDecodingContainer

    func decodeNil() -> Bool { value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try JSONScalarDecoding.bool(value, at: codingPath) }
    func decode(_ type: String.Type) throws -> String { try JSONScalarDecoding.string(value, at: codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try JSONScalarDecoding.double(value, at: codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try JSONScalarDecoding.float(value, at: codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try integer(Int.self) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(Int8.self) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(Int16.self) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(Int32.self) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(Int64.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(UInt.self) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(UInt8.self) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(UInt16.self) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(UInt32.self) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(UInt64.self) }
    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value { try decodeValue(Value.self) }

    private func integer<Integer: FixedWidthInteger>(_ type: Integer.Type) throws(DecodingError) -> Integer {
        try JSONScalarDecoding.integer(Integer.self, value, at: codingPath)
    }
}
