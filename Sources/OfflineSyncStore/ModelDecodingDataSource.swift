package import OfflineSyncCore
/// A data source that decodes `Decodable` models where it holds its items, straight from the form it keeps them in,
/// so that a typed read (the engine's `TypedSyncTable`) builds no item dictionary on the way. ``InMemoryDataSource``
/// and the journal store are ones; the typed tables read through ``SyncContextDataSource/read(table:id:)`` and
/// `JSONValueDecoder` from any other store.
///
/// A model decoded so is the one `JSONValueDecoder` decodes from the item the untyped read returns, and a decoding
/// failure is the same `DecodingError`.
package protocol ModelDecodingDataSource: SyncContextDataSource {
    /// The item with `id` (matched case-insensitively) in `table` decoded as `Model`, or nil.
    /// - Throws: `DecodingError` when the item does not fit `Model`; the store's errors as ``read(table:id:)``.
    func readModel<Model: Decodable & Sendable>(_ type: Model.Type, table: String, id: String) async throws -> Model?
    /// The items of `query.table` matching the query, decoded as `Model`s, in the query's order.
    /// - Throws: `DecodingError` when an item does not fit `Model`; the store's errors as ``read(_:)``.
    func readModels<Model: Decodable & Sendable>(_ type: Model.Type, _ query: Query) async throws -> [Model]
}
