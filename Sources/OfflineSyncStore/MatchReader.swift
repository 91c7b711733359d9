import OfflineSyncCore
/// Reads a query's page from the candidate slots an index plan yields (``IndexPlanner/Plan``): each candidate is
/// decoded and tested against the plan's residual conditions, or, when the index entries decide every match (no
/// residual), skipped and counted without being read. Candidates that do not come in `orderBy`'s order are ranked
/// by their sort values alone (read from the item's text without decoding the rest when nothing else must be
/// tested), keeping only the first `skip + top`. The page is a list of slots, whose items the caller decodes (as
/// dictionaries, or straight into models), unless testing them decoded them already.
struct MatchReader {
    /// A source of candidate slots: calls its argument with each, until it returns false.
    typealias Candidates = ((Int32) -> Bool) -> Void

    let table: ItemTable
    let query: Query
    let residual: Filter?
    /// How many candidates there are when known without walking them: the count of matches when there is no
    /// residual.
    let candidateCount: Int?
    /// The count of every match, after a read.
    private(set) var total = 0
    private let skip: Int
    private let keep: Int?
    private var shape: JSONObjectShape?

    init(table: ItemTable, query: Query, residual: Filter?, candidateCount: Int?) {
        self.table = table
        self.query = query
        self.residual = residual
        self.candidateCount = candidateCount
        skip = max(query.skip ?? 0, 0)
        keep = query.keptMatches
    }

    /// The page of candidates that come in the query's order, each slot with its item when testing it decoded it
    /// already (nil otherwise); stops once the page is full unless the count still needs items tested.
    mutating func inOrder(_ candidates: Candidates) -> [(slot: Int32, item: JSONObject?)] {
        // With every candidate a match and their count known, nothing needs walking past the page.
        let counted = residual == nil ? candidateCount : nil
        total = counted ?? 0
        if keep == 0, counted != nil || !query.includeTotalCount { return [] }
        var page: [(slot: Int32, item: JSONObject?)] = []
        var seen = 0
        candidates { slot in
            if let residual {
                guard let item = decode(slot), residual.matches(item) else { return true }
                seen += 1
                if seen > skip, keep.map({ seen <= $0 }) ?? true { page.append((slot, item)) }
            } else {
                seen += 1
                if seen > skip, keep.map({ seen <= $0 }) ?? true { page.append((slot, nil)) }
            }
            guard let keep, seen >= keep else { return true }
            return counted == nil && query.includeTotalCount
        }
        if counted == nil { total = seen }
        return page
    }

    /// The slots of the page of candidates in any order, ranked by `orderBy` (``Query/effectiveOrderBy``).
    mutating func sorted(_ candidates: Candidates) -> [Int32] {
        let counted = residual == nil ? candidateCount : nil
        total = counted ?? 0
        if keep == 0, counted != nil || !query.includeTotalCount { return [] }
        // A field named twice is read once: its second mention orders nothing.
        let orderBy = query.effectiveOrderBy
        let fields = orderBy.map(\.field)
        var ranked = RankedSlots(orderBy: orderBy, capacity: keep)
        var seen = 0
        candidates { slot in
            if let residual {
                guard let item = decode(slot), residual.matches(item) else { return true }
                if keep != 0 { ranked.insert(fields.map { item[$0] ?? .null }, slot: slot) }
            } else if keep != 0, let values = table.values(of: slot, fields: fields) {
                ranked.insert(values, slot: slot)
            }
            seen += 1
            return true
        }
        if counted == nil { total = seen }
        return Array(ranked.orderedSlots().dropFirst(skip))
    }

    /// The item in `slot`, decoded (with the shape guessed from the last item kept as text).
    mutating func decode(_ slot: Int32) -> JSONObject? {
        table.decode(slot, shape: &shape)
    }
}

/// Slots ranked by their items' sort values, stably (ties keep their arrival order): the first `capacity` kept
/// sorted while they arrive when that is small, else all kept and sorted at the end.
struct RankedSlots {
    let orderBy: [SortKey]
    let capacity: Int?
    private var entries: [(values: [JSONValue], slot: Int32)] = []

    /// Up to this many slots are kept sorted while they arrive (an insertion moves at most this many).
    static let insertionLimit = 512

    init(orderBy: [SortKey], capacity: Int?) {
        self.orderBy = orderBy
        self.capacity = capacity
    }

    private var keepsSorted: Bool { capacity.map { $0 <= Self.insertionLimit } ?? false }

    mutating func insert(_ values: [JSONValue], slot: Int32) {
        guard keepsSorted, let capacity else {
            entries.append((values, slot))
            return
        }
        if entries.count == capacity, let last = entries.last, !precedes(values, last.values) { return }
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if precedes(values, entries[middle].values) { high = middle } else { low = middle + 1 }
        }
        entries.insert((values, slot), at: low)
        if entries.count > capacity { entries.removeLast() }
    }

    /// The first `capacity` slots (all without one), in order.
    func orderedSlots() -> [Int32] {
        if keepsSorted { return entries.map(\.slot) }
        let order = entries.indices.sorted { lhs, rhs in
            if precedes(entries[lhs].values, entries[rhs].values) { return true }
            return !precedes(entries[rhs].values, entries[lhs].values) && lhs < rhs
        }
        return order.prefix(capacity ?? order.count).map { entries[$0].slot }
    }

    private func precedes(_ lhs: [JSONValue], _ rhs: [JSONValue]) -> Bool {
        for (column, key) in orderBy.enumerated() {
            let order = ValueComparison.sortOrder(lhs[column], rhs[column])
            if order != 0 { return key.ascending ? order < 0 : order > 0 }
        }
        return false
    }
}
