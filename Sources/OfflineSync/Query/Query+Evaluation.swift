extension Query {
    /// Runs this query over `items` with the local query rules: filter, then a total ordering by `orderBy`,
    /// then `skip` and `top`, then `select` (the listed fields plus `id`). `totalCount` counts every match.
    ///
    /// Data sources that keep items in memory use this to answer ``SyncContextDataSource/read(_:)``.
    public func evaluate(over items: some Sequence<JSONObject>) -> QueryResult {
        var matches: [JSONObject]
        if let filter {
            matches = items.filter { filter.matches($0) }
        } else {
            matches = Array(items)
        }
        let total = matches.count
        if !orderBy.isEmpty {
            let keys = orderBy
            matches.sort { lhs, rhs in
                for key in keys {
                    let order = ValueComparison.sortOrder(lhs[key.field] ?? .null, rhs[key.field] ?? .null)
                    if order != 0 { return key.ascending ? order < 0 : order > 0 }
                }
                return false
            }
        }
        let start = min(max(skip ?? 0, 0), matches.count)
        let end = top.map { min(start + max($0, 0), matches.count) } ?? matches.count
        var page = Array(matches[start..<end])
        if let select {
            let fields = Set(select + ["id"])
            page = page.map { item in item.filter { fields.contains($0.key) } }
        }
        return QueryResult(items: page, totalCount: includeTotalCount ? total : nil)
    }
}
