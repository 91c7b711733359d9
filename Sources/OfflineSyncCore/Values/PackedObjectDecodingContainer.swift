/// The keyed container of ``PackedObjectDecoder`` over the members of a packed object: each key found by its position
/// in the object's shape, each member decoded as ``JSONObjectDecodingContainer`` decodes the same member of the
/// object's dictionary.
///
/// The scalars models hold most (`String`, `Bool`, `Int`, `Int64`, `Double`, and their optionals) are read straight
/// from the packed bytes by methods of this type itself, not of ``JSONMemberDecoding``'s extension: a call from the
/// model then looks up no witness table of this generic type. A member of another kind than the one asked for is
/// read as a ``JSONValue`` and fails as the dictionary's would.
struct PackedObjectDecodingContainer<Key: CodingKey>: JSONMemberDecoding {
    let reader: PackedObjectReader

    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] { (reader.shape?.keys ?? []).compactMap { Key(stringValue: $0) } }

    var nodeDecoder: JSONNodeDecoder { reader.root }

    func contains(_ key: Key) -> Bool {
        reader.shape?.position(of: key.stringValue, trying: 0) != nil
    }

    func value(named name: String) -> JSONValue? {
        reader.member(named: name)
    }

    func path(_ key: Key) -> [any CodingKey] {
        [key]
    }

    // MARK: Members

    /// The position of the member at `key`; `keyNotFound` when there is none.
    private func position(_ key: Key) throws(DecodingError) -> Int {
        guard let position = reader.position(of: key.stringValue) else { throw .keyNotFound(key, at: []) }
        return position
    }

    /// The position of the member at `key` unless it is missing or `null`.
    private func presentPosition(_ key: Key) -> Int? {
        guard let position = reader.position(of: key.stringValue), !reader.isNull(at: position) else { return nil }
        return position
    }

    /// The member at `position` (of `key`) as a value, for what the readers of one kind do not read; `keyNotFound`
    /// when it cannot be read.
    private func member(at position: Int, _ key: Key) throws(DecodingError) -> JSONValue {
        guard let value = reader.member(at: position) else { throw .keyNotFound(key, at: []) }
        return value
    }

    // MARK: Scalars

    func decodeNil(forKey key: Key) throws -> Bool {
        let position = try position(key)
        return try reader.isNull(at: position) || member(at: position, key).isNull
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try string(at: position(key), key)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try bool(at: position(key), key)
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try double(at: position(key), key)
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try int(at: position(key), key)
    }

    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try int64(at: position(key), key)
    }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try reader.root.decodeChild(Value.self, from: member(at: position(key), key), at: key)
    }

    // One look-up instead of the default's three (contains, decodeNil, decode) for the optionals models hold most.

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try presentPosition(key).map { position throws(DecodingError) in try string(at: position, key) }
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try presentPosition(key).map { position throws(DecodingError) in try bool(at: position, key) }
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try presentPosition(key).map { position throws(DecodingError) in try double(at: position, key) }
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try presentPosition(key).map { position throws(DecodingError) in try int(at: position, key) }
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try presentPosition(key).map { position throws(DecodingError) in try int64(at: position, key) }
    }

    func decodeIfPresent<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        guard let position = presentPosition(key) else { return nil }
        return try reader.root.decodeChild(Value.self, from: member(at: position, key), at: key)
    }

    // MARK: Readers of one kind
    // Each reads the member straight from the bytes when it is of the kind asked for, and otherwise as a value,
    // which fails as the dictionary's member would.

    private func string(at position: Int, _ key: Key) throws(DecodingError) -> String {
        if let text = reader.string(at: position) { return text }
        return try JSONScalarDecoding.string(member(at: position, key), at: [key])
    }

    private func bool(at position: Int, _ key: Key) throws(DecodingError) -> Bool {
        if let flag = reader.bool(at: position) { return flag }
        return try JSONScalarDecoding.bool(member(at: position, key), at: [key])
    }

    private func double(at position: Int, _ key: Key) throws(DecodingError) -> Double {
        if let number = reader.number(at: position) { return number }
        return try JSONScalarDecoding.double(member(at: position, key), at: [key])
    }

    private func int(at position: Int, _ key: Key) throws(DecodingError) -> Int {
        if let number = reader.integer(at: position), let exact = Int(exactly: number) { return exact }
        return try JSONScalarDecoding.integer(Int.self, member(at: position, key), at: [key])
    }

    private func int64(at position: Int, _ key: Key) throws(DecodingError) -> Int64 {
        if let number = reader.integer(at: position) { return number }
        return try JSONScalarDecoding.integer(Int64.self, member(at: position, key), at: [key])
    }
}
