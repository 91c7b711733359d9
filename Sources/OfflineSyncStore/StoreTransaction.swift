public import OfflineSyncCore
/// The reads and the staged changes of one ``SyncContextDataSource/transaction(isolation:_:)``.
///
/// Reads see the store as it stands while the transaction holds it: every change applied before the transaction
/// began and none applied by another writer since. ``read(table:id:)`` also sees the changes staged here before it
/// (read your own writes), as the store will hold them once they are applied; ``read(_:)`` does not.
///
/// ```swift
/// try await store.transaction { transaction in
///     let counter = try await transaction.read(table: "Counters", id: "visits")
///     let visits = (counter?["count"]?.intValue ?? 0) + 1
///     transaction.stage([.upsert(table: "Counters", items: [["id": "visits", "count": .int(visits)]])])
/// }
/// ```
public struct StoreTransaction: Sendable {
    /// The store the transaction reads and writes.
    public let dataSource: any SyncContextDataSource
    /// The changes to apply when the body returns, in order, all or nothing.
    public private(set) var changes: [StoreChange] = []
    /// Whether the store may return before the changes are durable, as
    /// ``SyncContextDataSource/applyDeferringDurability(_:)`` does; false unless the body sets it.
    public var defersDurability = false
    /// The staged changes that name items or empty tables, by table, so that ``read(table:id:)`` finds the last
    /// one that concerns an item without walking every change.
    private var stagedTables: [String: StagedTable] = [:]

    /// Where an item's staged fate is, in ``changes``.
    private struct StagedTable: Sendable {
        /// The position of the last small change (``indexedItems`` items at most) that names each item, by its
        /// case-insensitive key (``ItemID/key(_:)``).
        var lastNaming: [String: Int] = [:]
        /// The positions of the larger changes, ascending: searched item by item when read, so that staging a pulled
        /// page or a run of marks costs no key per item (a transaction seldom reads after staging one).
        var bulk: [Int] = []
        /// The positions of the `deleteAll`s of the table, ascending.
        var wipes: [Int] = []
    }

    /// The most items a change may hold for ``stage(_:)`` to index them by key.
    private static let indexedItems = 8

    /// Starts an empty transaction on `dataSource` (a store's own ``SyncContextDataSource/transaction(isolation:_:)``
    /// creates it once it holds the store).
    public init(dataSource: any SyncContextDataSource) {
        self.dataSource = dataSource
    }

    /// The item with `id` (matched case-insensitively) in `table`, or nil, as the store will hold it once the changes
    /// staged so far are applied.
    public func read(table: String, id: String) async throws -> JSONObject? {
        guard let staged = stagedTables[table] else { return try await dataSource.read(table: table, id: id) }
        let key = ItemID.key(id)
        return try await item(key, id: id, table: table, before: changes.count, lastNaming: staged.lastNaming[key], wipes: staged.wipes)
    }

    /// The item as the changes before position `end` leave it: the last change among them that names it (at
    /// `lastNaming`, when that is before `end`, or a larger change after it) or empties its table (`wipes`), else the
    /// store's.
    private func item(_ key: String, id: String, table: String, before end: Int, lastNaming: Int?,
                      wipes: [Int]) async throws -> JSONObject? {
        let wipe = wipes.last { $0 < end }
        var named = lastNaming.flatMap { $0 < end ? $0 : nil }
        if named == nil, let lastNaming, lastNaming >= end {
            // A later change names the item: find the last one before `end` by walking back.
            named = changes[(wipe.map { $0 + 1 } ?? 0) ..< end].lastIndex { Self.names($0, key) }
        } else if let bulk = stagedTables[table]?.bulk {
            // A larger change after it may name the item too.
            let after = max(named ?? -1, wipe ?? -1)
            named = bulk.last { $0 > after && $0 < end && Self.names(changes[$0], key) } ?? named
        }
        if let named, named > (wipe ?? -1) {
            guard case .upsert(_, let items) = changes[named] else { return nil }
            return items.last { ($0["id"]?.stringValue).map { ItemID.hasKey($0, key) } ?? false }
        }
        guard let wipe else { return try await dataSource.read(table: table, id: id) }
        guard case .deleteAll(_, let filter?) = changes[wipe] else { return nil }
        // A filtered deleteAll removes the item only when the item it finds matches.
        let beneath = try await item(key, id: id, table: table, before: wipe, lastNaming: lastNaming, wipes: wipes)
        return beneath.flatMap { filter.matches($0) ? nil : $0 }
    }

    /// Whether `change` upserts or deletes the item whose key is `key`.
    private static func names(_ change: StoreChange, _ key: String) -> Bool {
        switch change {
        case .upsert(_, let items): items.contains { ($0["id"]?.stringValue).map { ItemID.hasKey($0, key) } ?? false }
        case .delete(_, let ids): ids.contains { ItemID.hasKey($0, key) }
        case .deleteAll: false
        }
    }

    /// The items of `query.table` matching the query.
    public func read(_ query: Query) async throws -> QueryResult {
        try await dataSource.read(query)
    }

    /// Adds `changes` to the ones applied when the body returns.
    public mutating func stage(_ changes: [StoreChange]) {
        for change in changes {
            let position = self.changes.count
            self.changes.append(change)
            switch change {
            case .upsert(let table, let items) where items.count > Self.indexedItems:
                stagedTables[table, default: StagedTable()].bulk.append(position)
            case .delete(let table, let ids) where ids.count > Self.indexedItems:
                stagedTables[table, default: StagedTable()].bulk.append(position)
            case .upsert(let table, let items):
                for item in items {
                    if let id = item["id"]?.stringValue { stagedTables[table, default: StagedTable()].lastNaming[ItemID.key(id)] = position }
                }
            case .delete(let table, let ids):
                for id in ids { stagedTables[table, default: StagedTable()].lastNaming[ItemID.key(id)] = position }
            case .deleteAll(let table, _):
                stagedTables[table, default: StagedTable()].wipes.append(position)
            }
        }
    }
}
