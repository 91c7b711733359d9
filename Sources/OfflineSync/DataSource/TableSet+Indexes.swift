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

    /// How ``read(_:)`` answers `query`: the index it walks, or a scan, and why.
    /// - Throws: ``DataSourceError`` for an invalid table name or query.
    public func explain(_ query: Query) throws(DataSourceError) -> QueryPlan {
        try StoreChange.validateTable(query.table)
        do { try query.validate() } catch { throw DataSourceError.invalidQuery(error) }
        switch IndexPlanner.choose(query, among: indexes[query.table] ?? []) {
        case .failure(let refusal):
            return QueryPlan(access: .scan, reason: refusal.reason)
        case .success(let choice):
            let definition = indexes[query.table]?[choice.index].definition ?? IndexDefinition(table: query.table, fields: [])
            var parts: [String] = []
            if !choice.equalityFields.isEmpty { parts.append("equality on \(choice.equalityFields.joined(separator: ", "))") }
            if let range = choice.range { parts.append("range on \(range.field)") }
            if !query.orderBy.isEmpty {
                parts.append(query.top == nil ? "orderBy follows the index, in order" : "orderBy follows the index, in order, stopping after skip + top matches")
            }
            return QueryPlan(access: .index(definition, equalityFields: choice.equalityFields), reason: parts.joined(separator: "; "))
        }
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

    /// Answers a validated `query` through an index when one serves it; nil when a scan must.
    func indexedRead(_ query: Query, table: ItemTable) -> QueryResult? {
        guard let list = indexes[query.table], case .success(let choice) = IndexPlanner.choose(query, among: list) else {
            return nil
        }
        let index = list[choice.index]
        let positions = Self.positions(of: choice, in: index)
        let skip = max(query.skip ?? 0, 0)
        let keep = query.top.map { skip + max($0, 0) }
        var total = 0
        var page: [JSONObject] = []
        var shape: JSONObjectShape?
        func visit(_ position: Int) -> Bool {
            guard let item = table.decode(index.slot(at: position), shape: &shape), query.filter?.matches(item) ?? true else { return true }
            total += 1
            if total > skip && keep.map({ total <= $0 }) ?? true { page.append(item) }
            return query.includeTotalCount || keep.map { total < $0 } ?? true
        }
        if choice.descending {
            for position in positions.reversed() where !visit(position) { break }
        } else {
            for position in positions where !visit(position) { break }
        }
        if let select = query.select {
            let fields = Set(select + ["id"])
            page = page.map { item in item.filter { fields.contains($0.key) } }
        }
        return QueryResult(items: page, totalCount: query.includeTotalCount ? total : nil)
    }

    /// The positions of `index` that can hold matches: those whose first values equal the choice's prefix and,
    /// with range conditions, whose next value lies within the bounds (and is of the bounds' kind).
    private static func positions(of choice: IndexPlanner.Choice, in index: TableIndex) -> Range<Int> {
        var prefix: [UInt8] = []
        for value in choice.prefix { OrderedKey.append(value, to: &prefix) }
        guard let range = choice.range else {
            return prefix.isEmpty ? 0..<index.count : index.positions(from: prefix, to: prefix)
        }
        let kind = OrderedKey.kindBounds(of: range.lower?.value ?? range.upper?.value ?? .null)
        var lower = prefix, upper = prefix
        var lowerInclusive = true, upperInclusive = false
        if let bound = range.lower {
            OrderedKey.append(bound.value, to: &lower)
            lowerInclusive = bound.inclusive
        } else {
            lower.append(kind.lower)
        }
        if let bound = range.upper {
            OrderedKey.append(bound.value, to: &upper)
            upperInclusive = bound.inclusive
        } else {
            upper.append(kind.upper)
        }
        return index.positions(from: lower, inclusive: lowerInclusive, to: upper, inclusive: upperInclusive)
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
