import OfflineSyncCore
extension ItemTable {
    /// The item in `slot` decoded as `Model` straight from its packed form (``PackedObjectDecoder``), without
    /// building its dictionary; nil for a free slot.
    /// - Throws: `DecodingError` when the item does not fit `Model`.
    func model<Model: Decodable>(_ type: Model.Type, in slot: Int32) throws -> Model? {
        let decoded: Result<Model?, any Error> = withPacked(slot) { packed in
            Result { try packed.map { try PackedObjectDecoder().decode(Model.self, from: $0, shape: shape) } }
        }
        return try decoded.get()
    }
}
