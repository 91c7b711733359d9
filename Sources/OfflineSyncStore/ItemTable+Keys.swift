import OfflineSyncCore
/// The keys items are found by (an id's ``ItemID/key(_:)``) and their hashes, some computed from an id's UTF-8
/// without building the key.
extension ItemTable {
    /// The hash under which the key `key` is stored.
    static func hash(_ key: String) -> UInt32 {
        var key = key
        return key.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }

    /// The hash of a key given as its UTF-8.
    static func hash(_ key: UnsafeRawBufferPointer) -> UInt32 {
        var hasher = Hasher()
        hasher.combine(bytes: key)
        return UInt32(truncatingIfNeeded: hasher.finalize())
    }

    /// ``hash(_:)`` of ``ItemID/key(_:)`` of the id whose UTF-8 is `id`, computed without building the key; nil
    /// unless the id is printable ASCII (whose key is the id lower-cased).
    static func hash(ofKeyOf id: UnsafeBufferPointer<UInt8>) -> UInt32? {
        guard id.count <= 256 else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: id.count) { folded in
            for (position, byte) in id.enumerated() {
                guard byte >= 0x20, byte < 0x80 else { return nil }
                folded[position] = byte &- 0x41 < 26 ? byte | 0x20 : byte
            }
            return hash(UnsafeRawBufferPointer(folded))
        }
    }

    /// The key of an item: its string id's ``ItemID/key(_:)``.
    static func key(of item: JSONObject) -> String? {
        guard case .string(let id)? = item["id"] else { return nil }
        return ItemID.key(id)
    }
}
