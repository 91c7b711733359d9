public import OfflineSyncCore
extension TableSet {
    /// How ``read(_:)`` answers `query`: the index it walks, or a scan, and why.
    /// - Throws: ``DataSourceError`` for an invalid table name or query.
    public func explain(_ query: Query) throws(DataSourceError) -> QueryPlan {
        try StoreChange.validateTable(query.table)
        do { try query.validate() } catch { throw DataSourceError.invalidQuery(error) }
        let list = foldedIndexes(of: query.table)
        switch IndexPlanner.choose(query, among: list) {
        case .failure(let refusal):
            return QueryPlan(access: .scan, reason: refusal.reason)
        case .success(let plan):
            let walked = plan.walked
            var range: [String] = []
            if let bounds = walked.range {
                if let lower = bounds.lower { range.append(bounds.field + (lower.inclusive ? ">=?" : ">?")) }
                if let upper = bounds.upper { range.append(bounds.field + (upper.inclusive ? "<=?" : "<?")) }
            }
            return QueryPlan(access: .index(list[walked.index].definition, equalityFields: walked.equalityFields),
                             reason: Self.reason(for: plan, query, list), rangeConditions: range)
        }
    }

    /// The steps of `plan`, for people: what the walk fixes and narrows, how the order and the count are had.
    private static func reason(for plan: IndexPlanner.Plan, _ query: Query, _ list: [TableIndex]) -> String {
        let walked = plan.walked
        var parts: [String] = []
        if !walked.equalityFields.isEmpty { parts.append("equality on \(walked.equalityFields.joined(separator: ", "))") }
        if walked.skipsFirstField, let first = list[walked.index].definition.fields.first {
            parts.append("skip-scan: each of the \(walked.ranges.count) values of \(first) walked as a group")
        }
        if let range = walked.range {
            let exact = !range.consumed.isEmpty || (range.lower == nil && range.upper == nil)
            parts.append("range on \(range.field)" + (exact ? "" : " (instants: narrowed to whole days)"))
        }
        for partner in plan.choices.dropFirst() {
            let decided = partner.equalityFields + (partner.range.map { [$0.field] } ?? [])
            parts.append("intersected with index (\(list[partner.index].definition.fields.joined(separator: ", "))) "
                + "on \(decided.joined(separator: ", ")) (its slots filter the walk)")
        }
        let keep = query.top == nil ? "" : ", stopping after skip + top matches"
        if !query.orderBy.isEmpty {
            if walked.servesOrder {
                parts.append("orderBy follows the index, in order" + (walked.skipsFirstField ? ", the groups merged" : "") + keep)
            } else {
                parts.append("orderBy sorts the matches by their sort values alone, then reads the page's items")
            }
        }
        parts.append("up to \(walked.entryCount) index \(walked.entryCount == 1 ? "entry" : "entries") walked")
        if let test = plan.entryResidual {
            var named = Set<String>()
            let fields = test.fieldNames.filter { named.insert($0).inserted }
            parts.append("\(fields.joined(separator: ", ")) tested on each entry's values before its item is read")
        }
        if plan.residual == nil {
            parts.append("the index entries\(plan.entryResidual == nil ? "" : " and their values") decide every match: "
                + "skipped and counted without reading items")
        } else {
            parts.append("each candidate item tested against the rest of the filter")
        }
        return parts.joined(separator: "; ")
    }

    /// Answers a validated `query` from the indexes when a plan serves it; nil when a scan must.
    func indexedRead(_ query: Query, table: ItemTable) -> QueryResult? {
        guard let (page, found) = indexedPage(query, table: table) else { return nil }
        var reader = found
        var items = page.compactMap { entry in entry.item ?? reader.decode(entry.slot) }
        if let select = query.select {
            let fields = Set(select + ["id"])
            items = items.map { item in item.filter { fields.contains($0.key) } }
        }
        return QueryResult(items: items, totalCount: query.includeTotalCount ? reader.total : nil)
    }

    /// The page of a validated `query` read from the indexes when a plan serves it (each slot with its item when
    /// testing it decoded it), and the reader that read it (its total, its decoding of the other items); nil when a
    /// scan must answer.
    func indexedPage(_ query: Query, table: ItemTable) -> (page: [(slot: Int32, item: JSONObject?)], reader: MatchReader)? {
        let list = foldedIndexes(of: query.table)
        guard case .success(let plan) = IndexPlanner.choose(query, among: list) else { return nil }
        let walked = plan.walked, index = list[walked.index]
        let filters = plan.choices.dropFirst().map { Self.slotBitmap($0, list[$0.index], slotCount: table.slotCount) }
        let entryTest = plan.entryResidual.map { EntryTest($0, fields: index.definition.fields) }
        let candidates: MatchReader.Candidates = { visit in
            Self.walk(walked, index) { position in
                let slot = index.slot(at: position)
                guard filters.allSatisfy({ Self.contains($0, slot) }) else { return true }
                if let entryTest, let residual = plan.entryResidual {
                    // An entry holding an array or an object is tested on its item.
                    let passes = entryTest.passes(index, at: position) ?? table.decode(slot).map { residual.matches($0) } ?? false
                    guard passes else { return true }
                }
                return visit(slot)
            }
        }
        var reader = MatchReader(table: table, query: query, residual: plan.residual,
                                 candidateCount: filters.isEmpty && plan.entryResidual == nil ? walked.entryCount : nil)
        let page = plan.isOrdered ? reader.inOrder(candidates) : reader.sorted(candidates).map { (slot: $0, item: JSONObject?.none) }
        return (page, reader)
    }

    /// The indexes of `table`, each folded (``TableIndex/fold()``): as held when ``foldIndexes(of:)`` ran since the
    /// last change, else folded copies.
    private func foldedIndexes(of table: String) -> [TableIndex] {
        guard let list = indexes[table] else { return [] }
        return list.allSatisfy(\.isFolded) ? list : list.map { $0.folded() }
    }

    /// Folds the run of each index of `table` into its main list, so that reads find every entry there without
    /// folding a copy each (a store calls this before each read; it costs nothing when nothing was added).
    public mutating func foldIndexes(of table: String) {
        guard indexes[table]?.contains(where: { !$0.isFolded }) == true else { return }
        indexes[table]?.indices.forEach { indexes[table]?[$0].fold() }
    }

    /// Calls `visit` with the position of each entry `choice` walks, in the index's order (backwards when
    /// descending; the groups of a skip-scan merged when the order is served), until it returns false.
    private static func walk(_ choice: IndexPlanner.Choice, _ index: TableIndex, _ visit: (Int) -> Bool) {
        guard choice.ranges.count > 1, choice.servesOrder else {
            for range in choice.ranges {
                if choice.descending {
                    for position in range.reversed() where !visit(position) { return }
                } else {
                    for position in range where !visit(position) { return }
                }
            }
            return
        }
        // Each group's next entry; the first by the fields after the first goes next.
        var heads = choice.ranges.filter { !$0.isEmpty }.map { choice.descending ? $0.upperBound - 1 : $0.lowerBound }
        var ends = choice.ranges.filter { !$0.isEmpty }.map { choice.descending ? $0.lowerBound - 1 : $0.upperBound }
        while !heads.isEmpty {
            var next = 0
            for group in heads.indices.dropFirst() {
                let order = index.compareAfterFirstValue(heads[group], heads[next])
                if choice.descending ? order > 0 : order < 0 { next = group }
            }
            guard visit(heads[next]) else { return }
            heads[next] += choice.descending ? -1 : 1
            if heads[next] == ends[next] {
                heads.remove(at: next)
                ends.remove(at: next)
            }
        }
    }

    /// A bit per slot, set for the slots of the entries `choice` walks (in any order: a bitmap keeps none), for a
    /// table of `slotCount` slots. The bitmap is made at its full size at once and filled in one pass over each
    /// range of entries: this is most of the work of a query whose walk is filtered by a large partner.
    private static func slotBitmap(_ choice: IndexPlanner.Choice, _ index: TableIndex, slotCount: Int) -> [UInt64] {
        var bits = [UInt64](repeating: 0, count: (slotCount + 63) / 64)
        if choice.ranges.allSatisfy({ index.markSlots(at: $0, in: &bits) }) { return bits }
        // An entry whose slot lies beyond the table's (never so while the index follows the table): grow as needed.
        walk(choice, index) { position in
            let slot = index.slot(at: position), word = Int(slot) / 64
            if word >= bits.count { bits.append(contentsOf: repeatElement(0, count: word + 1 - bits.count)) }
            bits[word] |= 1 << UInt64(slot % 64)
            return true
        }
        return bits
    }

    private static func contains(_ bits: [UInt64], _ slot: Int32) -> Bool {
        let word = Int(slot) / 64
        return word < bits.count && bits[word] & (1 << UInt64(slot % 64)) != 0
    }
}
