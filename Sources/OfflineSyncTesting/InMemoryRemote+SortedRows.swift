import OfflineSync

/// A table's rows in a read's order, with what lets an incremental pull's page start near its first match
/// instead of testing every earlier row.
///
/// An incremental pull asks for `updatedAt ge T` ordered by `updatedAt`. When the rows are sorted by `updatedAt`
/// first, the rows whose `updatedAt` is a timestamp are in instant order (the server writes every timestamp in
/// one fixed-width form, whose byte order is its time order), so a binary search finds the first row at or after
/// `T`. No row before it can match a filter that requires `updatedAt ge T` (or `gt T`), so the read tests the
/// filter, with ``Filter/matches(_:)``, from there on and returns the same page and total count as a full scan.
struct SortedRows: Sendable {
    let rows: [JSONObject]
    /// The instant of every row whose `updatedAt` is a timestamp, with the row's position, in row order;
    /// nil unless the rows are sorted by `updatedAt` ascending first.
    private let instants: [(instant: Int64, position: Int)]?

    init(_ rows: [JSONObject], byUpdatedAt: Bool) {
        self.rows = rows
        guard byUpdatedAt else {
            instants = nil
            return
        }
        var instants: [(instant: Int64, position: Int)] = []
        instants.reserveCapacity(rows.count)
        for (position, row) in rows.enumerated() {
            if case .string(let text)? = row["updatedAt"], let instant = Timestamp.milliseconds(from: text) {
                instants.append((instant, position))
            }
        }
        // Only timestamps in the server's own form are guaranteed to sort by instant; check rather than assume.
        let ordered = zip(instants, instants.dropFirst()).allSatisfy { $0.instant <= $1.instant }
        self.instants = ordered ? instants : nil
    }

    /// The position of the first row that can match `query`'s filter: 0 unless the filter requires `updatedAt` to
    /// be at or after an instant and the rows are ordered by `updatedAt`.
    func firstCandidate(for query: Query) -> Int {
        guard let instants, let filter = query.filter, let bound = Self.lowerBound(in: filter) else { return 0 }
        var low = 0, high = instants.count
        while low < high {
            let middle = (low + high) / 2
            if instants[middle].instant < bound { low = middle + 1 } else { high = middle }
        }
        return low < instants.count ? instants[low].position : rows.count
    }

    /// The instant `T` when every item matching `filter` has an `updatedAt` timestamp at or after `T`: the filter
    /// is `updatedAt ge T` or `updatedAt gt T`, or a conjunction holding one.
    static func lowerBound(in filter: Filter) -> Int64? {
        switch filter {
        case .comparison(let field, let op, .string(let text))
            where field.name == "updatedAt" && (op == .greaterThanOrEqual || op == .greaterThan):
            return Timestamp.milliseconds(from: text)
        case .and(let lhs, let rhs):
            switch (lowerBound(in: lhs), lowerBound(in: rhs)) {
            case (let a?, let b?): return max(a, b)
            case (let a, let b): return a ?? b
            }
        default:
            return nil
        }
    }
}
