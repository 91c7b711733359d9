extension TableSet {
    /// Upserts `items` into `table` whose keys were computed beforehand (opening a store parses and keys the
    /// snapshot's items on every core): the same result as ``apply(_:)`` with one `upsert` of the items, in
    /// order, without lower-casing ids here. Items without a key (no string id) are skipped, as `apply` skips them.
    mutating func load(table: String, items: [KeyedItem]) {
        var contents = tables.removeValue(forKey: table) ?? [:]
        contents.reserveCapacity(contents.count + items.count)
        for keyed in items {
            guard let key = keyed.key else { continue }
            contents[key] = keyed.item
        }
        tables[table] = contents
        rebuildIndexes(table: table)
    }
}
