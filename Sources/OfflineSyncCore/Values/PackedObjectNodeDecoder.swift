/// The top-level `Decoder` of ``PackedObjectDecoder``, over the members of one packed object that its
/// ``PackedObjectReader`` reads: keyed containers read them in place, anything else decodes from the object's
/// dictionary. A value, so that handing it to a model allocates nothing.
struct PackedObjectNodeDecoder: Decoder {
    let reader: PackedObjectReader

    static var notAnObject: DecodingError {
        .dataCorrupted(.init(codingPath: [], debugDescription: "The stored bytes are not a packed JSON object."))
    }

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The object as a tree, for what is not read through a keyed container.
    private func tree() throws -> JSONNodeDecoder {
        guard let object = reader.object() else { throw Self.notAnObject }
        return JSONNodeDecoder(value: .object(object), parent: nil, key: nil)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        reader.beginKeys(Key.self)
        return KeyedDecodingContainer(PackedObjectDecodingContainer<Key>(reader: reader))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try tree().unkeyedContainer()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        try tree()
    }
}
