/// Decodes `Decodable` models straight from an object packed with its table's shape (``PackedObject``), without
/// building the object's dictionary: each key the model asks for is found by its position in the shape, and only its
/// member is read, in place (the members after the last one read are tried first, since a model usually declares its
/// fields in the order its items list them).
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
            let decoder = PackedObjectNodeDecoder(bytes: bytes, shape: shape)
            // The decoder reads `bytes` only while they are lent: a model that kept it finds nothing after this.
            defer { decoder.finish() }
            do {
                let value = try Value(from: decoder)
                if decoder.isDamaged { throw PackedObjectNodeDecoder.notAnObject }
                return value
            } catch {
                // A member that could not be read looks missing to the model: the bytes are at fault, not the model.
                if decoder.isDamaged { throw PackedObjectNodeDecoder.notAnObject }
                throw error
            }
        }
        guard let object = PackedObject.decode(bytes, shape: shape) else { throw PackedObjectNodeDecoder.notAnObject }
        return try JSONValueDecoder().decode(Value.self, from: .object(object))
    }
}

/// The top-level `Decoder` of ``PackedObjectDecoder``: the members of one packed object, read in place where the
/// caller lends its bytes, each when its key is asked for.
final class PackedObjectNodeDecoder: Decoder {
    let shape: JSONObjectShape
    /// The packed object (tag byte first); empty once the decode is over.
    private var bytes: UnsafeRawBufferPointer
    /// The position of the next member after the last one read, and where it starts in `bytes`.
    private var cursor = (position: 0, offset: 1)
    /// Set when a member could not be read (the bytes are not a packed object): the decode then fails as a whole.
    private(set) var isDamaged = false
    /// The parent of the decoders of nested values, whose coding path is empty (this decoder's).
    private(set) lazy var root = JSONNodeDecoder(value: .null, parent: nil, key: nil)

    static var notAnObject: DecodingError {
        .dataCorrupted(.init(codingPath: [], debugDescription: "The stored bytes are not a packed JSON object."))
    }

    init(bytes: UnsafeRawBufferPointer, shape: JSONObjectShape) {
        self.bytes = bytes
        self.shape = shape
    }

    /// Ends the loan of the bytes: a member asked for later is missing.
    func finish() {
        bytes = UnsafeRawBufferPointer(start: nil, count: 0)
    }

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The member at `key`, or nil when the object has none.
    func member(_ key: String) -> JSONValue? {
        guard let position = shape.position(of: key, trying: cursor.position), !bytes.isEmpty else { return nil }
        if position < cursor.position { cursor = (0, 1) }
        var offset = cursor.offset
        for _ in cursor.position..<position where PackedValue.skip(bytes, at: &offset) == nil {
            isDamaged = true
            return nil
        }
        guard let value = PackedValue.read(bytes, at: &offset) else {
            isDamaged = true
            return nil
        }
        cursor = (position + 1, offset)
        return value
    }

    /// The object as a tree, for what is not read through a keyed container.
    private func tree() throws -> JSONNodeDecoder {
        guard let object = PackedObject.decode(bytes, shape: shape) else { throw Self.notAnObject }
        return JSONNodeDecoder(value: .object(object), parent: nil, key: nil)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(PackedObjectDecodingContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try tree().unkeyedContainer()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        try tree()
    }
}
