public import OfflineSyncCore
/// Tables of items held in memory, with the validation and query rules every data source shares.
///
/// ``InMemoryDataSource`` is a thin actor around a `TableSet`; the journal store keeps one too: it validates each batch
/// (``validate(_:)``), then applies it once its record is written, or, for a large record, while the record is being
/// written, keeping what undoes it (`BatchReversal`) in case the write fails.
public struct TableSet: Sendable {
    /// The items of each table, held compactly (``ItemTable``).
    var tables: [String: ItemTable] = [:]
    /// Secondary indexes by table, kept in step with `tables` by every mutation.
    var indexes: [String: [TableIndex]] = [:]

    /// An empty set of tables.
    public init() {}

    /// The names of tables that hold at least one item.
    public var tableNames: [String] {
        tables.filter { !$0.value.isEmpty }.keys.sorted()
    }

    /// How many items `table` holds.
    public func count(table: String) -> Int { tables[table]?.count ?? 0 }

    /// How many items all the tables hold together.
    package var itemCount: Int { tables.values.reduce(0) { $0 + $1.count } }

    /// Every item of `table`, decoded, in unspecified order.
    public func items(table: String) -> [JSONObject] { tables[table]?.items ?? [] }

    /// Calls `body` with the JSON text of every item of `table` (one line), to be written out: in the order of the
    /// table's first index when it has one (so that a snapshot loaded back gets that index's entries already in
    /// order, leaving its sort nothing to do), else in unspecified order.
    /// `body` is given the slot of each item too (for ``lookupEntries(table:written:)``).
    package func forEachItemText<Failure: Error>(table: String, _ body: (Int32, ItemText) throws(Failure) -> Void) throws(Failure) {
        guard let items = tables[table] else { return }
        func emit(_ slot: Int32) throws(Failure) {
            let outcome: Result<Void, Failure> = items.withText(of: slot) { text in
                guard let text else { return .success(()) }
                do throws(Failure) { try body(slot, text) } catch { return .failure(error) }
                return .success(())
            }
            try outcome.get()
        }
        if let index = indexes[table]?.first, index.count == items.count {
            try index.forEachSlot(emit)
        } else {
            for slot in items.liveSlots { try emit(slot) }
        }
    }

    /// The item with `id` (case-insensitive), or nil.
    public func item(table: String, id: String) -> JSONObject? {
        guard let position = tables.index(forKey: table) else { return nil }
        return tables.values[position].find(id: id)
    }

    /// Answers `query` with the local query rules.
    /// - Throws: ``DataSourceError`` for an invalid table name or negative skip/top.
    public func read(_ query: Query) throws(DataSourceError) -> QueryResult {
        try StoreChange.validateTable(query.table)
        do { try query.validate() } catch { throw DataSourceError.invalidQuery(error) }
        guard let table = tables[query.table] else {
            return QueryResult(items: [], totalCount: query.includeTotalCount ? 0 : nil)
        }
        if let result = indexedRead(query, table: table) { return result }
        return query.evaluate(over: table.decodedItems)
    }

    /// Checks a whole batch without changing anything: ``StoreChange/validate(_:)``.
    /// - Throws: ``DataSourceError`` naming the first problem.
    public static func validate(_ changes: [StoreChange]) throws(DataSourceError) {
        try StoreChange.validate(changes)
    }

    /// Applies a batch that ``validate(_:)`` accepted; it cannot fail. Indexes follow in the same step.
    public mutating func apply(_ changes: [StoreChange]) {
        var notRecording: BatchReversal?
        apply(changes, recording: &notRecording)
    }

    /// The large upserts of `changes` whose index entries are worth building aside (``AddedIndexEntries``), by the
    /// change's position in the batch: the fields of each index of its table, in the table's order.
    package func indexFieldsAside(for changes: [StoreChange]) -> [Int: [[String]]] {
        var aside: [Int: [[String]]] = [:]
        for (position, change) in changes.enumerated() {
            guard case .upsert(let name, let items) = change, items.count >= AddedIndexEntries.minimumItems,
                  let list = indexes[name] else { continue }
            aside[position] = list.map(\.definition.fields)
        }
        return aside
    }

    /// ``apply(_:)``, keeping the packed form of the upserted items that `packed` holds (the journal packed them as
    /// it wrote the batch), and noting in `reversal`, when there is one, what each change replaced or removed, so
    /// that ``revert(_:)`` can take the batch back. A `deleteAll` cannot be taken back so: it sets `reversal` to nil.
    /// `entriesAside` holds, by the change's position, the index entries built for the upserts that
    /// ``indexFieldsAside(for:)`` named; entries built for indexes the table no longer has are not used.
    package mutating func apply(_ changes: [StoreChange], packed: PackedItems = PackedItems(), recording reversal: inout BatchReversal?,
                                entriesAside: [Int: AddedIndexEntries] = [:]) {
        let recording = reversal != nil
        var ordinal = 0
        var touched: [String: IndexedChanges] = [:]
        for (position, change) in changes.enumerated() {
            let name = change.table
            let tracks = indexes[name] != nil
            switch change {
            case .upsert(_, let items):
                var table = tables.removeValue(forKey: name) ?? ItemTable()
                var indexed = tracks ? touched.removeValue(forKey: name) ?? IndexedChanges() : nil
                let builder = entriesAside[position].flatMap { aside in
                    aside.fields == indexes[name]?.map(\.definition.fields) ? aside : nil
                }
                var slots = [Int32?](repeating: nil, count: builder == nil ? 0 : items.count)
                for (number, item) in items.enumerated() {
                    defer { ordinal += 1 }
                    guard case .string(let id)? = item["id"] else { continue }
                    let (slot, _, previous, previousCopy) = packed.withItem(at: ordinal, shape: table.shape) { bytes in
                        table.upsert(item, id: id, packed: bytes, decodingPrevious: tracks, copyingPrevious: recording)
                    }
                    if builder == nil {
                        indexed?.record(slot: slot, previous: previous, final: item)
                    } else {
                        slots[number] = slot
                        if let previous { indexed?.record(slot: slot, previous: previous, final: nil) }
                    }
                    reversal?.note(table: name, id: id, previous: previousCopy)
                }
                if let builder { indexed?.added.append(builder.entries(slots: slots)) }
                tables[name] = table
                if let indexed { touched[name] = indexed }
            case .delete(_, let ids):
                guard var table = tables.removeValue(forKey: name) else { continue }
                for id in ids {
                    let key = ItemID.key(id)
                    guard let (slot, item, copy) = table.remove(key: key, decoding: tracks, copying: recording) else { continue }
                    if tracks { touched[name, default: IndexedChanges()].record(slot: slot, previous: item, final: nil) }
                    reversal?.note(table: name, id: id, previous: copy)
                }
                tables[name] = table
            case .deleteAll(_, nil):
                reversal = nil
                tables.removeValue(forKey: name)
                touched[name] = nil
                if let list = indexes[name] { indexes[name] = list.map { TableIndex(definition: $0.definition) } }
            case .deleteAll(_, let filter?):
                reversal = nil
                guard var table = tables.removeValue(forKey: name) else { continue }
                let doomed = table.decodedItems.filter { filter.matches($0) }.compactMap(ItemTable.key(of:))
                for key in doomed {
                    guard let (slot, item, _) = table.remove(key: key, decoding: tracks) else { continue }
                    if tracks { touched[name, default: IndexedChanges()].record(slot: slot, previous: item, final: nil) }
                }
                tables[name] = table
            }
        }
        for (name, changes) in touched { updateIndexes(table: name, changes) }
    }

    /// The deepest nesting of arrays and objects an item may hold: ``StoreChange/maximumItemDepth``.
    public static var maximumItemDepth: Int { StoreChange.maximumItemDepth }
}
