import OfflineSyncCore
extension TableSet {
    /// Declares `definitions` and builds each over the items held now. Declaring the same index twice keeps one.
    /// - Throws: ``DataSourceError`` for an invalid definition; nothing changes then.
    public mutating func defineIndexes(_ definitions: [IndexDefinition]) throws(DataSourceError) {
        for definition in definitions { try definition.validate() }
        for definition in definitions where !(indexes[definition.table]?.contains { $0.definition == definition } ?? false) {
            indexes[definition.table, default: []].append(Self.build(definition, over: tables[definition.table]))
        }
    }

    /// The declared indexes: by table name, then in declaration order.
    public var indexDefinitions: [IndexDefinition] {
        indexes.keys.sorted().flatMap { indexes[$0]?.map(\.definition) ?? [] }
    }

    /// An index of `definition` over `table`'s items.
    static func build(_ definition: IndexDefinition, over table: ItemTable?) -> TableIndex {
        var index = TableIndex(definition: definition)
        guard let table else { return index }
        var shape: JSONObjectShape?
        for slot in table.liveSlots {
            if let item = table.decode(slot, shape: &shape) { index.appendUnsorted(index.entry(for: item, slot: slot)) }
        }
        index.sort()
        return index
    }

    /// Folds the changes of one batch into every index of `table`.
    mutating func updateIndexes(table: String, _ changes: IndexedChanges) {
        guard var list = indexes.removeValue(forKey: table) else { return }
        for position in list.indices {
            let fields = list[position].definition.fields
            var removed = IndexEntryBatch(), added = changes.added.first?[position] ?? IndexEntryBatch()
            for built in changes.added.dropFirst() { added.append(contentsOf: built[position]) }
            for (slot, original, final) in changes.changes {
                if let original { removed.append(original, fields: fields, slot: slot) }
                if let final { added.append(final, fields: fields, slot: slot) }
                // A change that leaves the indexed values as they were needs nothing.
                if original != nil, final != nil, removed.lastMatches(lastOf: added) {
                    removed.removeLast()
                    added.removeLast()
                }
            }
            list[position].update(removing: removed, adding: added)
        }
        indexes[table] = list
    }
}

/// The items one batch changed in a table with indexes, change by change: the slot, the item it held before the
/// change and the one it holds after (nil: none). A slot changed twice is listed twice; the entries of the states in
/// between cancel out when the index is updated (``IndexEntryBatch/cancelCommon(_:_:)``).
struct IndexedChanges {
    var changes: [(slot: Int32, original: JSONObject?, final: JSONObject?)] = []
    /// The entries built aside for the table's large upserts (``AddedIndexEntries``): per upsert, a batch per index.
    /// Their items are listed in `changes` only by what they replaced.
    var added: [[IndexEntryBatch]] = []

    mutating func record(slot: Int32, previous: JSONObject?, final: JSONObject?) {
        changes.append((slot, previous, final))
    }
}
