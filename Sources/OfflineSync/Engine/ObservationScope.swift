/// Whether committed changes can alter an observed query's result, as a pure function: a change that provably
/// cannot is not worth a re-query.
enum ObservationScope {
    /// Whether `changes` (any tables) may alter the result of `query`, last seen as `last`.
    ///
    /// A change of another table cannot. With no `skip` and no total count, neither can an upsert of an item that
    /// is not in the last result and does not match the filter after the change (it matched neither before nor
    /// after, or lay beyond the `top` window before and matches nothing now), nor a delete of ids not in the last
    /// result (they lay outside the window). Anything else may.
    static func mayAlter(_ query: Query, lastResult last: QueryResult, by changes: [StoreChange]) -> Bool {
        let relevant = changes.filter { $0.table == query.table }
        guard !relevant.isEmpty else { return false }
        guard (query.skip ?? 0) == 0, !query.includeTotalCount else { return true }
        let shown = Set(last.items.compactMap { $0["id"]?.stringValue.map(ItemID.key) })
        for change in relevant {
            switch change {
            case .upsert(_, let items):
                for item in items {
                    let key = item["id"]?.stringValue.map(ItemID.key)
                    if key.map(shown.contains) ?? true { return true }
                    if query.filter?.matches(item) ?? true { return true }
                }
            case .delete(_, let ids):
                if ids.contains(where: { shown.contains(ItemID.key($0)) }) { return true }
            case .deleteAll:
                return true
            }
        }
        return false
    }
}
