/// The keyed container of ``PackedObjectDecoder`` over the members of a packed object: each key found by its position
/// in the object's shape, each member decoded as ``JSONObjectDecodingContainer`` decodes the same member of the
/// object's dictionary.
struct PackedObjectDecodingContainer<Key: CodingKey>: JSONMemberDecoding {
    let decoder: PackedObjectNodeDecoder

    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] { decoder.shape.keys.compactMap { Key(stringValue: $0) } }

    var nodeDecoder: JSONNodeDecoder { decoder.root }

    func contains(_ key: Key) -> Bool {
        decoder.shape.position(of: key.stringValue, trying: 0) != nil
    }

    func value(named name: String) -> JSONValue? {
        decoder.member(name)
    }

    func path(_ key: Key) -> [any CodingKey] {
        [key]
    }
}
