import OfflineSyncCore
/// Chooses how a query is answered from the indexes, or refuses (a scan must). An index serves a query when the
/// filter's top-level conjunction holds equality conditions on a prefix of its fields, possibly range conditions on
/// the next field (``IndexConditions``), or when walking it yields `orderBy`'s order. With no condition on an
/// index's first field, its few values can each be walked as a group (a skip-scan), for a range or an order on its
/// second field. `orderBy` is taken without the later mentions of a field (``Query/effectiveOrderBy``), which order
/// nothing. When the best walk does not give `orderBy`'s order and another does, that one is walked instead.
/// The other indexes that decide further conjuncts filter the walk by their slots (an intersection); when no walk
/// gives the order, the matches are ranked by their sort values alone. The conjuncts the
/// walked entries do not decide are tested on the entries' values when they name only indexed fields
/// (``Plan/entryResidual``), else on each item (``Plan/residual``); when no item needs testing, matches are counted
/// and skipped without reading one.
struct IndexPlanner {
    /// One index and the part of it to walk.
    struct Choice {
        var index: Int
        var prefix: [JSONValue]
        var equalityFields: [String]
        var range: RangeBounds?
        /// Whether the walk yields the items in `orderBy`'s order (walked backwards when `descending`).
        var servesOrder: Bool
        var descending: Bool
        /// Whether the index's first field is free and each of its values is walked as a group.
        var skipsFirstField: Bool
        /// The positions to walk: one range, or one per value of the first field for a skip-scan.
        var ranges: [Range<Int>]
        /// The conjuncts the walked entries decide.
        var consumed: Set<Int>

        /// How many entries the walk visits.
        var entryCount: Int { ranges.reduce(0) { $0 + $1.count } }
    }

    /// How a query is answered from the indexes.
    struct Plan {
        /// The walked index, then the indexes whose slots filter it (intersected with it).
        var choices: [Choice]
        /// The conjuncts no walked entry decides but that name only the walked index's fields: tested on each
        /// entry's values before its item is read. Nil when there are none.
        var entryResidual: Filter?
        /// The other conjuncts no walked entry decides, which each item must still satisfy; nil when the entries
        /// (with `entryResidual`) decide every match.
        var residual: Filter?
        /// Whether the walk gives `orderBy`'s order (always so with no `orderBy`).
        var isOrdered: Bool

        var walked: Choice { choices[0] }
    }

    /// A skip-scan walks at most this many values of the first field.
    static let skipScanGroupLimit = 64
    /// An index filters the walk only when its entries are at most this many times those walked: the slots of all
    /// its entries are marked, where the walk may stop early.
    static let intersectionRatio = 16
    /// About how many entries a walk passes over (a bitmap test each) in the time the sort values of one match are
    /// read from its item's text.
    static let sortValueCost = 50

    /// The best plan over `indexes` (most fields fixed, then a range, then the order served, then fewest entries;
    /// a walk that gives `orderBy` when the best does not), or why there is none.
    static func choose(_ query: Query, among indexes: [TableIndex]) -> Result<Plan, PlanRefusal> {
        guard !indexes.isEmpty else { return .failure(PlanRefusal("no index is defined on \(query.table)")) }
        let conditions = IndexConditions(query.filter)
        // The order the answer has: a field's second mention orders nothing, so a walk need not follow it.
        let orderBy = query.effectiveOrderBy
        let direct = indexes.enumerated().compactMap { choice($0.offset, $0.element, orderBy, conditions) }
        var candidates = direct
        // A skip-scan (one search per value of the first field) only when no index fixes a field, or for an order
        // no other walk gives.
        if !direct.contains(where: { !$0.0.prefix.isEmpty }) || (!orderBy.isEmpty && !direct.contains(where: { $0.0.servesOrder })) {
            candidates += indexes.enumerated().compactMap { skipScan($0.offset, $0.element, orderBy, conditions) }
        }
        guard var walked = best(of: candidates) else {
            return .failure(PlanRefusal("no index has the filter's equality fields as a prefix followed by a range condition or the orderBy fields"))
        }
        // A walk that gives the order, checking the other walks' conditions through their slots, reads only the
        // page's items, where ranking the best walk's matches reads the sort values of each: worth it unless the
        // walk would pass over many more entries (about `skip + top` in the share the best walk keeps) than that.
        if !orderBy.isEmpty, !walked.servesOrder, let ordered = best(of: candidates.filter { $0.0.servesOrder }) {
            let keep = query.keptMatches.map { min($0, walked.entryCount) }
            let passed = keep.map { $0 * ordered.entryCount / max(walked.entryCount, 1) } ?? ordered.entryCount
            if passed <= walked.entryCount * sortValueCost { walked = ordered }
        }
        // Other indexes that decide more conjuncts filter the walk by their slots before any item is read.
        var choices = [walked]
        var consumed = walked.consumed
        let partners = direct.map(\.0).filter {
            $0.index != walked.index && $0.entryCount <= max(walked.entryCount, 1) * intersectionRatio
        }
        for partner in partners.sorted(by: { $0.entryCount < $1.entryCount }) where !partner.consumed.isSubset(of: consumed) {
            choices.append(partner)
            consumed.formUnion(partner.consumed)
        }
        // Without an order to keep, the smallest walk goes first and the others filter it.
        if !walked.servesOrder, let smallest = choices.indices.min(by: { choices[$0].entryCount < choices[$1].entryCount }) {
            choices.swapAt(0, smallest)
        }
        let indexed = Set(indexes[choices[0].index].definition.fields)
        var entryResidual: Filter?, residual: Filter?
        for (position, conjunct) in conditions.conjuncts.enumerated() where !consumed.contains(position) {
            if conjunct.fieldNames.allSatisfy(indexed.contains) {
                entryResidual = entryResidual.map { $0 && conjunct } ?? conjunct
            } else {
                residual = residual.map { $0 && conjunct } ?? conjunct
            }
        }
        return .success(Plan(choices: choices, entryResidual: entryResidual, residual: residual,
                             isOrdered: orderBy.isEmpty || choices[0].servesOrder))
    }

    /// The highest-scoring candidate, the one with fewer entries among equals.
    private static func best(of candidates: [(Choice, Int)]) -> Choice? {
        candidates.min { lhs, rhs in lhs.1 > rhs.1 || (lhs.1 == rhs.1 && lhs.0.entryCount < rhs.0.entryCount) }?.0
    }

    /// The walk of `index` its equality prefix and range give, with its score; nil when it serves nothing.
    /// `orderBy` is the query's ``Query/effectiveOrderBy``.
    private static func choice(_ position: Int, _ index: TableIndex, _ orderBy: [SortKey],
                               _ conditions: IndexConditions) -> (Choice, Int)? {
        let fields = index.definition.fields
        var prefix: [JSONValue] = [], consumed: Set<Int> = []
        for field in fields {
            guard let (value, conjunct) = conditions.equalities[field] else { break }
            prefix.append(value)
            consumed.insert(conjunct)
        }
        let rest = Array(fields.dropFirst(prefix.count))
        let range = rest.first.flatMap { conditions.rangeBounds(on: $0) }
        let servesOrder = follows(orderBy, rest)
        guard !prefix.isEmpty || range != nil || servesOrder else { return nil }
        var bytes: [UInt8] = []
        for value in prefix { OrderedKey.append(value, to: &bytes) }
        let choice = Choice(index: position, prefix: prefix, equalityFields: Array(fields.prefix(prefix.count)), range: range,
                            servesOrder: servesOrder, descending: orderBy.first.map { !$0.ascending } ?? false,
                            skipsFirstField: false, ranges: [positions(in: index, after: bytes, range)],
                            consumed: consumed.union(range?.consumed ?? []))
        return (choice, prefix.count * 100 + (range == nil ? 0 : 50) + (servesOrder ? 10 + orderBy.count : 0))
    }

    /// The skip-scan of `index`: with no equality on its first field, each of that field's values walked as a group,
    /// for a range on the second field or an order that follows the fields after the first. Nil when it serves
    /// nothing or the first field has more than ``skipScanGroupLimit`` values.
    private static func skipScan(_ position: Int, _ index: TableIndex, _ orderBy: [SortKey],
                                 _ conditions: IndexConditions) -> (Choice, Int)? {
        let fields = index.definition.fields
        guard fields.count >= 2, conditions.equalities[fields[0]] == nil, conditions.rangeBounds(on: fields[0]) == nil else { return nil }
        let range = conditions.rangeBounds(on: fields[1])
        let servesOrder = follows(orderBy, Array(fields.dropFirst()))
        guard range != nil || servesOrder, let groups = index.firstValueGroups(limit: skipScanGroupLimit) else { return nil }
        let choice = Choice(index: position, prefix: [], equalityFields: [], range: range, servesOrder: servesOrder,
                            descending: orderBy.first.map { !$0.ascending } ?? false, skipsFirstField: true,
                            ranges: groups.map { positions(in: index, after: $0, range) }, consumed: range?.consumed ?? [])
        return (choice, (range == nil ? 0 : 40) + (servesOrder ? 5 + orderBy.count : 0))
    }

    /// Whether walking fields `rest` in order (or backwards) yields `orderBy`'s order: it names their first fields,
    /// all in one direction. An empty `orderBy` is not served by an order (nothing to follow). `orderBy` names each
    /// field once (``Query/effectiveOrderBy``): a field named again would be a second index field here.
    private static func follows(_ orderBy: [SortKey], _ rest: [String]) -> Bool {
        !orderBy.isEmpty && orderBy.count <= rest.count && zip(orderBy, rest).allSatisfy { $0.field == $1 }
            && orderBy.allSatisfy { $0.ascending == orderBy[0].ascending }
    }

    /// The positions of `index` whose entries start with `prefix` (encoded values) and, with `range`, whose next
    /// value lies within its bounds (and is of their kind).
    private static func positions(in index: TableIndex, after prefix: [UInt8], _ range: RangeBounds?) -> Range<Int> {
        guard let bounds = EntryBounds(after: prefix, range) else { return 0..<index.count }
        return index.positions(from: bounds.lower, inclusive: bounds.lowerInclusive, to: bounds.upper, inclusive: bounds.upperInclusive)
    }
}

/// Why no index serves a query.
struct PlanRefusal: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}
