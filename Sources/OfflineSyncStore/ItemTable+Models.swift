import OfflineSyncCore
extension ItemTable {
    /// The item in `slot` decoded as `Model` straight from its packed form (``PackedObjectDecoder``), without
    /// building its dictionary; nil for a free slot. The decoder's reader comes from `readers` (and goes back to them)
    /// when the caller keeps them.
    /// - Throws: `DecodingError` when the item does not fit `Model`.
    func model<Model: Decodable>(_ type: Model.Type, in slot: Int32, reusing readers: PackedObjectReaders?) throws -> Model? {
        try withPacked(slot) { packed in
            guard let packed else { return nil }
            return try PackedObjectDecoder(reusing: readers).decode(Model.self, from: packed, shape: shape)
        }
    }
}
