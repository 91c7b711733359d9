/// Decodes `Decodable` models straight from an object packed with its table's shape (``PackedObject``), without
/// building the object's dictionary: the members are read in the shape's order, and each key the model asks for is
/// found by its position in the shape (the next position tried first, since a model usually declares its fields in
/// the order its items list them).
///
/// The result and the errors are those of ``JSONValueDecoder`` on the object ``PackedObject/decode(_:shape:)``
/// gives for the same bytes: each member is decoded by the same rules (``JSONScalarDecoding``, and
/// ``JSONNodeDecoder`` below the top level), with the same coding paths. An object kept as text, and a type read
/// without a keyed container at the top, are decoded from that dictionary.
package struct PackedObjectDecoder: Sendable {
    package init() {}

    /// The `Value` that the object packed in `bytes` with `shape` decodes to.
    /// - Throws: `DecodingError` when it does not fit `Value`, or `dataCorrupted` (empty coding path) when the bytes
    ///   are not a packed object.
    package func decode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer,
                                          shape: JSONObjectShape?) throws -> Value {
        if bytes.first == PackedObject.shaped, let shape, !JSONNodeDecoder.readsDirectly(Value.self) {
            guard let members = PackedObject.members(bytes, shape: shape) else { throw Self.notAnObject }
            return try Value(from: PackedObjectNodeDecoder(shape: shape, members: members))
        }
        guard let object = PackedObject.decode(bytes, shape: shape) else { throw Self.notAnObject }
        return try JSONValueDecoder().decode(Value.self, from: .object(object))
    }

    private static var notAnObject: DecodingError {
        .dataCorrupted(.init(codingPath: [], debugDescription: "The stored bytes are not a packed JSON object."))
    }
}

/// The top-level `Decoder` of ``PackedObjectDecoder``: the members of one packed object, in its shape's order.
final class PackedObjectNodeDecoder: Decoder {
    let shape: JSONObjectShape
    let members: [JSONValue]
    /// The position tried first for the next key asked: the one after the last found.
    private var guess = 0
    /// The parent of the decoders of nested values, whose coding path is empty (this decoder's).
    private(set) lazy var root = JSONNodeDecoder(value: .null, parent: nil, key: nil)

    init(shape: JSONObjectShape, members: [JSONValue]) {
        self.shape = shape
        self.members = members
    }

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The member at `key`, or nil when the object has none.
    func member(_ key: String) -> JSONValue? {
        guard let position = shape.position(of: key, trying: guess) else { return nil }
        guard position < members.count else { return nil }
        guess = position + 1
        return members[position]
    }

    /// The object as a tree, for what is not read through a keyed container.
    private var tree: JSONNodeDecoder {
        let object = shape.instantiate { members[$0] } ?? [:]
        return JSONNodeDecoder(value: .object(object), parent: nil, key: nil)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(PackedObjectDecodingContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try tree.unkeyedContainer()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        tree
    }
}
