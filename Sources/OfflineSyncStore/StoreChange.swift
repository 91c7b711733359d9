public import OfflineSyncCore
/// One change to a data source; ``SyncContextDataSource/apply(_:)`` applies a batch of them atomically.
public enum StoreChange: Sendable, Hashable {
    /// Inserts or replaces whole items, matched by `id` case-insensitively.
    case upsert(table: String, items: [JSONObject])
    /// Deletes items by id (case-insensitive); unknown ids are ignored.
    case delete(table: String, ids: [String])
    /// Deletes every item of the table matching the filter; nil deletes every item.
    case deleteAll(table: String, matching: Filter?)

    /// The table the change applies to.
    public var table: String {
        switch self {
        case .upsert(let table, _), .delete(let table, _), .deleteAll(let table, _): return table
        }
    }

    /// Whether the change is a `deleteAll`, with or without a filter.
    package var isDeleteAll: Bool {
        if case .deleteAll = self { return true }
        return false
    }

    /// How many items the changes of `changes` upsert, all tables together.
    package static func upsertedItemCount(of changes: [StoreChange]) -> Int {
        changes.reduce(0) { count, change in
            guard case .upsert(_, let items) = change else { return count }
            return count + items.count
        }
    }

    /// Whether the change is a `deleteAll` with a filter.
    package var hasFilter: Bool {
        if case .deleteAll(_, _?) = self { return true }
        return false
    }
}
