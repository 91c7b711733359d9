import OfflineSyncCore
import OfflineSyncStore
/// Whether committed changes can alter an observed query's result, as a pure function: a change that provably
/// cannot is not worth a re-query.
enum ObservationScope {
    /// Whether `changes` (any tables) may alter the result of `query`, last seen as `last`.
    ///
    /// A change of another table cannot. With no `skip` and no total count, neither can an upsert of an item that
    /// is not in the last result and, after the change, does not match the filter (it matched neither before nor
    /// after, or lay beyond the `top` window before and matches nothing now) or sorts strictly after the last item
    /// of a full `top` window; nor a delete of ids not in the last result (they lay outside the window). Anything
    /// else may.
    /// - Parameter shown: the keys (``ItemID/key(_:)``) of the items of `last`, as ``shownKeys(of:)`` makes them.
    static func mayAlter(_ query: Query, lastResult last: QueryResult, shown: Set<String>, by changes: [StoreChange]) -> Bool {
        guard changes.contains(where: { $0.table == query.table }) else { return false }
        guard (query.skip ?? 0) == 0, !query.includeTotalCount else { return true }
        // The last item of a full window, when an item that sorts strictly after it cannot enter the window.
        let windowEnd = query.top.flatMap { top in
            top == last.items.count && query.select == nil && !query.orderBy.isEmpty ? last.items.last : nil
        }
        for change in changes where change.table == query.table {
            switch change {
            case .upsert(_, let items):
                for item in items {
                    let key = item["id"]?.stringValue.map(ItemID.key)
                    if key.map(shown.contains) ?? true { return true }
                    guard query.filter?.matches(item) ?? true else { continue }
                    guard let windowEnd, Query.precedes(windowEnd, item, query.orderBy) else { return true }
                }
            case .delete(_, let ids):
                if ids.contains(where: { shown.contains(ItemID.key($0)) }) { return true }
            case .deleteAll:
                return true
            }
        }
        return false
    }

    /// The keys of the items of a result, for ``mayAlter(_:lastResult:shown:by:)``.
    static func shownKeys(of result: QueryResult) -> Set<String> {
        Set(result.items.compactMap { $0["id"]?.stringValue.map(ItemID.key) })
    }
}
