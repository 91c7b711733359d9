/// A keyed decoding container over the members of an object, each a ``JSONValue``: what a container provides is how
/// to find a member and the coding path of a key; decoding the member is the same whatever holds the object (a
/// dictionary, ``JSONObjectDecodingContainer``; a packed item, ``PackedObjectDecodingContainer``).
protocol JSONMemberDecoding: KeyedDecodingContainerProtocol {
    /// The member named `name`, nil when there is none.
    func value(named name: String) -> JSONValue?
    /// The coding path of the member at `key`.
    func path(_ key: Key) -> [any CodingKey]
    /// The decoder that decodes a member's value into a model and makes nested containers.
    var nodeDecoder: JSONNodeDecoder { get }
}

extension JSONMemberDecoding {
    /// The member at `key`, nil when there is none.
    func value(forKey key: Key) -> JSONValue? {
        value(named: key.stringValue)
    }

    func contains(_ key: Key) -> Bool {
        value(forKey: key) != nil
    }

    /// The member at `key`; `keyNotFound` when there is none.
    func member(_ key: Key) throws(DecodingError) -> JSONValue {
        guard let value = value(forKey: key) else { throw .keyNotFound(key, at: codingPath) }
        return value
    }

    /// The member at `key` unless it is missing or `null`.
    func presentMember(_ key: Key) -> JSONValue? {
        guard let value = value(forKey: key), !value.isNull else { return nil }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try member(key).isNull
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try JSONScalarDecoding.bool(member(key), at: path(key))
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try JSONScalarDecoding.string(member(key), at: path(key))
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try JSONScalarDecoding.double(member(key), at: path(key))
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try JSONScalarDecoding.float(member(key), at: path(key))
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        // The common case without the generic path's metadata look-ups.
        let value = try member(key)
        if case .int(let number) = value, let exact = Int(exactly: number) { return exact }
        return try JSONScalarDecoding.integer(Int.self, value, at: path(key))
    }

    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(Int8.self, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(Int16.self, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(Int32.self, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(Int64.self, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(UInt.self, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(UInt8.self, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(UInt16.self, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(UInt32.self, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(UInt64.self, key) }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try nodeDecoder.decodeChild(Value.self, from: member(key), at: key)
    }

    private func integer<Integer: FixedWidthInteger>(_ type: Integer.Type, _ key: Key) throws(DecodingError) -> Integer {
        try JSONScalarDecoding.integer(Integer.self, member(key), at: path(key))
    }

    // One look-up instead of the default's three (contains, decodeNil, decode) for the optionals models hold most.

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let value = presentMember(key) else { return nil }
        return try JSONScalarDecoding.string(value, at: path(key))
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let value = presentMember(key) else { return nil }
        return try JSONScalarDecoding.bool(value, at: path(key))
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let value = presentMember(key) else { return nil }
        return try JSONScalarDecoding.double(value, at: path(key))
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let value = presentMember(key) else { return nil }
        return try JSONScalarDecoding.integer(Int.self, value, at: path(key))
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        guard let value = presentMember(key) else { return nil }
        return try JSONScalarDecoding.integer(Int64.self, value, at: path(key))
    }

    func decodeIfPresent<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        guard let value = presentMember(key) else { return nil }
        return try nodeDecoder.decodeChild(Value.self, from: value, at: key)
    }

    // MARK: Nested containers

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type,
                                               forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try JSONNodeDecoder(value: member(key), parent: nodeDecoder, key: key).container(keyedBy: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try JSONNodeDecoder(value: member(key), parent: nodeDecoder, key: key).unkeyedContainer()
    }

    /// The decoder of the member `"super"`, of `null` when there is none (as `JSONDecoder`).
    func superDecoder() throws -> any Decoder {
        JSONNodeDecoder(value: value(named: JSONCodingKey.super.stringValue) ?? .null, parent: nodeDecoder, key: JSONCodingKey.super)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONNodeDecoder(value: value(forKey: key) ?? .null, parent: nodeDecoder, key: key)
    }
}
