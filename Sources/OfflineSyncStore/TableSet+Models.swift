package import OfflineSyncCore
extension TableSet {
    /// The item with `id` (case-insensitive) in `table` decoded as `Model` straight from its packed form, without
    /// building its dictionary (``PackedObjectDecoder``), or nil: what ``item(table:id:)`` returns, decoded by
    /// `JSONValueDecoder`. The decoder's reader comes from `readers` when the caller keeps them (a store, for its reads).
    /// - Throws: `DecodingError` when the item does not fit `Model`.
    package func model<Model: Decodable>(_ type: Model.Type, table: String, id: String,
                                         reusing readers: PackedObjectReaders? = nil) throws -> Model? {
        guard let position = tables.index(forKey: table) else { return nil }
        let items = tables.values[position]
        guard let slot = items.slot(ofID: id) else { return nil }
        return try items.model(Model.self, in: slot, reusing: readers)
    }

    /// The items matching `query` decoded as `Model`s: what ``read(_:)`` returns, decoded by `JSONValueDecoder`. The
    /// page of a query the indexes serve is decoded straight from the packed items (unless it selects fields), with the
    /// decoder's reader from `readers` when the caller keeps them.
    /// - Throws: ``DataSourceError`` for an invalid query; `DecodingError` when an item does not fit `Model`.
    package func models<Model: Decodable>(_ type: Model.Type, _ query: Query,
                                          reusing readers: PackedObjectReaders? = nil) throws -> [Model] {
        try StoreChange.validateTable(query.table)
        do { try query.validate() } catch { throw DataSourceError.invalidQuery(error) }
        if query.select == nil, let table = tables[query.table], let (page, _) = indexedPage(query, table: table) {
            return try page.compactMap { try table.model(Model.self, in: $0.slot, reusing: readers) }
        }
        let decoder = JSONValueDecoder()
        return try read(query).items.map { try decoder.decode(Model.self, from: .object($0)) }
    }
}
