extension TableSet {
    /// Declares `definitions` and builds each over the items held now. Declaring the same index twice keeps one.
    /// - Throws: ``DataSourceError`` for an invalid definition; nothing changes then.
    public mutating func defineIndexes(_ definitions: [IndexDefinition]) throws(DataSourceError) {
        for definition in definitions { try definition.validate() }
        for definition in definitions where !(indexes[definition.table]?.contains { $0.definition == definition } ?? false) {
            indexes[definition.table, default: []].append(TableIndex(definition: definition, table: tables[definition.table] ?? [:]))
        }
    }

    /// The declared indexes: by table name, then in declaration order.
    public var indexDefinitions: [IndexDefinition] {
        indexes.keys.sorted().flatMap { indexes[$0]?.map(\.definition) ?? [] }
    }

    /// How ``read(_:)`` answers `query`: the index it walks, or a scan, and why.
    /// - Throws: ``DataSourceError`` for an invalid table name or query.
    public func explain(_ query: Query) throws(DataSourceError) -> QueryPlan {
        try Self.validateTable(query.table)
        do { try query.validate() } catch { throw DataSourceError.invalidQuery(error) }
        switch IndexPlanner.choose(query, among: indexes[query.table] ?? []) {
        case .failure(let refusal):
            return QueryPlan(access: .scan, reason: refusal.reason)
        case .success(let choice):
            let definition = indexes[query.table]?[choice.index].definition ?? IndexDefinition(table: query.table, fields: [])
            let ordering = query.orderBy.isEmpty ? "" : (query.top == nil ? ", in order" : ", in order, stopping after skip + top matches")
            let reason = choice.equalityFields.isEmpty ? "orderBy follows the index\(ordering)" : "equality on \(choice.equalityFields.joined(separator: ", "))\(ordering)"
            return QueryPlan(access: .index(definition, equalityFields: choice.equalityFields), reason: reason)
        }
    }

    /// Re-indexes the items of `table` whose keys are `changed`; `previous` holds their versions before the batch.
    mutating func updateIndexes(table: String, changed: Set<String>, previous: [String: JSONObject]) {
        guard var list = indexes.removeValue(forKey: table) else { return }
        let contents = tables[table] ?? [:]
        for position in list.indices { list[position].update(changed: changed, previous: previous, table: contents) }
        indexes[table] = list
    }

    /// Rebuilds every index of `table` from its items.
    mutating func rebuildIndexes(table: String) {
        guard let list = indexes[table] else { return }
        let contents = tables[table] ?? [:]
        indexes[table] = list.map { TableIndex(definition: $0.definition, table: contents) }
    }

    /// Answers a validated `query` through an index when one serves it; nil when a scan must.
    func indexedRead(_ query: Query, table: [String: JSONObject]) -> QueryResult? {
        guard let list = indexes[query.table], case .success(let choice) = IndexPlanner.choose(query, among: list) else {
            return nil
        }
        let index = list[choice.index]
        let range = index.range(prefix: choice.prefix)
        let skip = max(query.skip ?? 0, 0)
        let keep = query.top.map { skip + max($0, 0) }
        var total = 0
        var page: [JSONObject] = []
        func visit(_ position: Int) -> Bool {
            guard let item = table[index.entries[position].key], query.filter?.matches(item) ?? true else { return true }
            total += 1
            if total > skip && keep.map({ total <= $0 }) ?? true { page.append(item) }
            return query.includeTotalCount || keep.map { total < $0 } ?? true
        }
        if choice.descending {
            for position in range.reversed() where !visit(position) { break }
        } else {
            for position in range where !visit(position) { break }
        }
        if let select = query.select {
            let fields = Set(select + ["id"])
            page = page.map { item in item.filter { fields.contains($0.key) } }
        }
        return QueryResult(items: page, totalCount: query.includeTotalCount ? total : nil)
    }
}
