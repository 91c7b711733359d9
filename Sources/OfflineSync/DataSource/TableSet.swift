/// Tables of items held in memory, with the validation and query rules every data source shares.
///
/// ``InMemoryDataSource`` is a thin actor around a `TableSet`; the journal store keeps one too and writes each
/// batch to disk between ``validate(_:)`` and ``apply(_:)``.
public struct TableSet: Sendable {
    /// One table: items keyed by their lower-cased id.
    var tables: [String: [String: JSONObject]] = [:]
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

    /// Every item of `table`, in unspecified order.
    public func items(table: String) -> Dictionary<String, JSONObject>.Values? { tables[table]?.values }

    /// The item with `id` (case-insensitive), or nil.
    public func item(table: String, id: String) -> JSONObject? {
        tables[table]?[ItemID.key(id)]
    }

    /// Answers `query` with the local query rules.
    /// - Throws: ``DataSourceError`` for an invalid table name or negative skip/top.
    public func read(_ query: Query) throws(DataSourceError) -> QueryResult {
        try Self.validateTable(query.table)
        do { try query.validate() } catch { throw DataSourceError.invalidQuery(error) }
        guard let table = tables[query.table] else {
            return QueryResult(items: [], totalCount: query.includeTotalCount ? 0 : nil)
        }
        if let result = indexedRead(query, table: table) { return result }
        return query.evaluate(over: table.values)
    }

    /// Checks a whole batch without changing anything.
    /// - Throws: ``DataSourceError`` naming the first problem.
    public static func validate(_ changes: [StoreChange]) throws(DataSourceError) {
        for change in changes {
            try validateTable(change.table)
            switch change {
            case .upsert(let table, let items):
                for item in items { try validateItem(item, table: table) }
            case .delete(let table, let ids):
                for id in ids where ItemID.violation(in: id) != nil {
                    throw DataSourceError.invalidID(table: table, id: id, reason: ItemID.violation(in: id) ?? "")
                }
            case .deleteAll:
                break
            }
        }
    }

    /// Applies a batch that ``validate(_:)`` accepted; it cannot fail.
    public mutating func apply(_ changes: [StoreChange]) {
        // Indexes follow in the same step: the keys each batch touches, with their versions before it.
        var changed: [String: Set<String>] = [:]
        var previous: [String: [String: JSONObject]] = [:]
        var rebuild: Set<String> = []
        defer {
            for table in rebuild { rebuildIndexes(table: table) }
            for (table, keys) in changed where !rebuild.contains(table) {
                updateIndexes(table: table, changed: keys, previous: previous[table] ?? [:])
            }
        }
        func touch(_ table: String, _ key: String) {
            guard changed[table, default: []].insert(key).inserted, let item = tables[table]?[key] else { return }
            previous[table, default: [:]][key] = item
        }
        for change in changes where indexes[change.table] != nil {
            switch change {
            case .upsert(let table, let items):
                for item in items { if case .string(let id)? = item["id"] { touch(table, ItemID.key(id)) } }
            case .delete(let table, let ids):
                for id in ids { touch(table, ItemID.key(id)) }
            case .deleteAll(let table, _):
                rebuild.insert(table)
            }
        }
        for change in changes {
            switch change {
            case .upsert(let table, let items):
                var contents = tables.removeValue(forKey: table) ?? [:]
                contents.reserveCapacity(contents.count + items.count)
                for item in items {
                    guard case .string(let id)? = item["id"] else { continue }
                    contents[ItemID.key(id)] = item
                }
                tables[table] = contents
            case .delete(let table, let ids):
                guard var contents = tables.removeValue(forKey: table) else { continue }
                for id in ids { contents.removeValue(forKey: ItemID.key(id)) }
                tables[table] = contents
            case .deleteAll(let table, nil):
                tables.removeValue(forKey: table)
            case .deleteAll(let table, let filter?):
                guard var contents = tables.removeValue(forKey: table) else { continue }
                contents = contents.filter { !filter.matches($0.value) }
                tables[table] = contents
            }
        }
    }

    static func validateTable(_ name: String) throws(DataSourceError) {
        guard TableName.isValid(name) else { throw DataSourceError.invalidTableName(name) }
    }

    static func validateItem(_ item: JSONObject, table: String) throws(DataSourceError) {
        guard let idValue = item["id"] else {
            throw DataSourceError.invalidItem(table: table, reason: "it has no \"id\"")
        }
        guard case .string(let id) = idValue else {
            throw DataSourceError.invalidItem(table: table, reason: "its \"id\" is not a string")
        }
        if let reason = ItemID.violation(in: id) {
            throw DataSourceError.invalidID(table: table, id: id, reason: reason)
        }
        if let problem = storageProblem(in: .object(item), depth: 1) {
            throw DataSourceError.invalidItem(table: table, reason: "item \(id) \(problem)")
        }
    }

    /// The deepest nesting of arrays and objects an item may hold (the item itself is level 1). Stores wrap items
    /// in a few levels of their own (a journal record), and every reader stops at ``JSONReader/maximumDepth``.
    public static let maximumItemDepth = JSONReader.maximumDepth - 16

    /// Why `value`, a container at nesting level `depth`, cannot be stored: a number JSON cannot hold, or nesting
    /// deeper than ``maximumItemDepth``. One walk, no allocation.
    private static func storageProblem(in value: JSONValue, depth: Int) -> String? {
        switch value {
        case .double(let number):
            return number.isFinite ? nil : "holds NaN or infinity, which JSON cannot store"
        case .array(let array):
            if depth > maximumItemDepth { return "nests arrays and objects deeper than \(maximumItemDepth) levels" }
            for element in array {
                if let problem = storageProblem(in: element, depth: depth + 1) { return problem }
            }
            return nil
        case .object(let object):
            if depth > maximumItemDepth { return "nests arrays and objects deeper than \(maximumItemDepth) levels" }
            for element in object.values {
                if let problem = storageProblem(in: element, depth: depth + 1) { return problem }
            }
            return nil
        default:
            return nil
        }
    }
}
