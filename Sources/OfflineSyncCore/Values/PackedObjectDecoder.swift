/// Decodes `Decodable` models straight from an object packed with its table's shape (``PackedObject``), without
/// building the object's dictionary: each key the model asks for is found by its position in the shape, and only its
/// member is read, in place (``PackedObjectReader``).
///
/// The result and the errors are those of ``JSONValueDecoder`` on the object ``PackedObject/decode(_:shape:)``
/// gives for the same bytes: each member is decoded by the same rules (``JSONScalarDecoding``, and
/// ``JSONNodeDecoder`` below the top level), with the same coding paths. An object kept as text, and a type read
/// without a keyed container at the top, are decoded from that dictionary.
package struct PackedObjectDecoder {
    /// Where the caller keeps a reader from one decode to the next.
    private let readers: PackedObjectReaders?

    /// A decoder that takes its reader from `readers` and gives it back when no model kept it, or that makes one for
    /// each decode.
    package init(reusing readers: PackedObjectReaders? = nil) {
        self.readers = readers
    }

    /// The `Value` that the object packed in `bytes` with `shape` decodes to.
    /// - Throws: `DecodingError` when it does not fit `Value`, or `dataCorrupted` (empty coding path) when the bytes
    ///   are not a packed object.
    package func decode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer,
                                          shape: JSONObjectShape?) throws -> Value {
        if bytes.first == PackedObject.shaped, let shape, !JSONNodeDecoder.readsDirectly(Value.self) {
            var reader = readers?.take() ?? PackedObjectReader()
            reader.lend(bytes, shape: shape)
            defer {
                // The reader reads `bytes` only while they are lent: a model that kept it finds nothing after this,
                // and it is not reused.
                reader.finish()
                if let readers, isKnownUniquelyReferenced(&reader) { readers.keep(reader) }
            }
            do {
                let value = try Value(from: PackedObjectNodeDecoder(reader: reader))
                if reader.isDamaged { throw PackedObjectNodeDecoder.notAnObject }
                return value
            } catch {
                // A member that could not be read looks missing to the model: the bytes are at fault, not the model.
                if reader.isDamaged { throw PackedObjectNodeDecoder.notAnObject }
                throw error
            }
        }
        guard let object = PackedObject.decode(bytes, shape: shape) else { throw PackedObjectNodeDecoder.notAnObject }
        return try JSONValueDecoder().decode(Value.self, from: .object(object))
    }
}

/// The reader of ``PackedObjectDecoder`` that a caller keeps from one decode to the next (with what it learnt of
/// the order in which models ask for their keys): a store keeps one for its typed reads, isolated to it.
package final class PackedObjectReaders {
    /// The reader given back by the last decode, if any.
    private var spare: PackedObjectReader?

    /// Readers still to make.
    package init() {}

    /// The reader kept, which is no longer kept, or a new one.
    func take() -> PackedObjectReader {
        guard let reader = spare else { return PackedObjectReader(keepingOrder: true) }
        spare = nil
        return reader
    }

    /// Keeps `reader`, that no model holds, for the next decode.
    func keep(_ reader: PackedObjectReader) {
        spare = reader
    }
}
