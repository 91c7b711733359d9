/// The keyed container of ``JSONValueDecoder`` over an object of the tree.
struct JSONObjectDecodingContainer<Key: CodingKey>: JSONMemberDecoding {
    let decoder: JSONNodeDecoder
    let members: JSONObject

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    var nodeDecoder: JSONNodeDecoder { decoder }

    func value(named name: String) -> JSONValue? {
        members[name]
    }

    func path(_ key: Key) -> [any CodingKey] {
        decoder.codingPath(appending: key)
    }
}
