import OfflineSyncCore
import OfflineSyncStore
/// The pull page loop as a pure value: from what each page held to the next request, or the end. No I/O: the
/// reference request sequences are unit tests of this value.
///
/// - A full pull stops at an empty page or when the query's `top` is reached, with `top = min(pageSize, remaining)`.
///   Without an order of its own it pages by id (``Request/byId``): ordered by `id`, each request asks for the ids after
///   the last record stored, the query's `skip` counted on the first request only, so no row that leaves the result
///   or is removed during the pull shifts the rows still to come. With an order it pages by position,
///   `skip = originalSkip + records so far`. A page whose last record has no string id is paged past by position
///   from the last id.
/// - An incremental pull pages by key (``PullKey``): each request asks for the records after the last one stored,
///   ordered by `updatedAt` then `id`, with `skip` 0, and each page moves the key (the delta token) to its last
///   record. A row that changes on the server during the pull moves past the key and cannot shift the rows still to
///   come, so none is skipped, however many share one `updatedAt`.
/// - A server whose stored timestamps are finer than the milliseconds it sends (a .NET back end keeping 100 ns)
///   answers "after (T, id)" with every record of T's millisecond again, since each of them is later than `T`. That
///   only repeats records, except when the millisecond holds a page or more: then a page ends on the key it was asked
///   after. The pager notices, and pages that millisecond by position (`updatedAt ge T` with a growing `skip`, as the
///   reference clients do everywhere) until a page reaches past it; the token stays at the last key meanwhile.
///   Records without a timestamp or id at the end of a page are paged the same way.
/// - Each request either moves the key forward or grows `skip`, so the loop ends, and the token only moves to a
///   record whose predecessors in the server's order were all stored.
struct PullPager: Sendable, Hashable {
    /// One request to send.
    struct Request: Sendable, Hashable {
        /// `$skip`: counted from the first record after `key` for an incremental pull.
        var skip: Int
        /// `$top`.
        var top: Int
        /// Incremental pulls: the records after this key, in ``PullKey/order``.
        var key: PullKey?
        /// Full pulls by id: the records whose id comes after this one, ordered by `id` (nil: from the first).
        var afterId: String?
        /// Whether a full pull pages by id.
        var byId = false
    }

    /// What a page changed.
    struct PageStep: Sendable, Hashable {
        /// The key to store as the delta token with the page, when it moved.
        var newKey: PullKey?
        /// Whether the pager went back to paging by position from a request by key: pages asked for ahead from that
        /// request do not follow from the pager's next one.
        var endsWindow = false
    }

    private(set) var pageSize: Int
    let incremental: Bool
    private let originalSkip: Int
    private var remaining: Int?
    private var processed = 0
    /// Incremental pulls: the key of the last record stored.
    private(set) var key: PullKey?
    /// Full pulls by id: whether they page by id, and the id of the last record stored.
    let byId: Bool
    private(set) var afterId: String?
    /// The instant whose records are paged by position, because paging by key stopped there.
    private var positionalAt: Int64?
    private(set) var pagesReceived = 0
    private(set) var recordsReceived = 0
    private var done = false
    private var skip: Int

    /// A full (non-incremental) pull of at most `limit` records starting at `skip`, paged by id when `byId`.
    init(skip: Int?, limit: Int?, pageSize: Int, byId: Bool = false) {
        self.pageSize = pageSize
        self.incremental = false
        self.byId = byId
        self.originalSkip = max(0, skip ?? 0)
        self.skip = originalSkip
        self.remaining = limit
        self.done = (limit ?? 1) <= 0
    }

    /// An incremental pull from `key` (nil: no stored token, every record).
    init(key: PullKey?, pageSize: Int) {
        self.pageSize = pageSize
        self.incremental = true
        self.byId = false
        self.originalSkip = 0
        self.skip = 0
        self.key = key ?? .start
    }

    /// Asks for pages of at most `size` records from the next request on (the server refused bigger ones).
    mutating func limitPageSize(to size: Int) {
        pageSize = max(1, min(pageSize, size))
    }

    /// Whether the pull pages by key: incremental, and not paging an instant by position.
    var pagesByKey: Bool { incremental && positionalAt == nil }

    /// How many more records a full pull with a `top` may store; nil when unbounded (or incremental).
    var remainingRecords: Int? { incremental ? nil : remaining }

    /// The next request, or nil when the pull is finished.
    var nextRequest: Request? {
        guard !done else { return nil }
        return Request(skip: skip, top: min(pageSize, remaining ?? Int.max), key: key, afterId: afterId, byId: byId)
    }

    /// Records a received page: how many records it held, counting those left out locally, and the key of its last
    /// record (incremental pulls; nil when that record has no timestamp or string id) or its id (full pulls by id).
    mutating func pageReceived(count: Int, last: PullKey?, lastId: String? = nil) -> PageStep {
        pagesReceived += 1
        recordsReceived += count
        guard count > 0 else {
            done = true
            return PageStep()
        }
        guard incremental, let current = key else {
            processed += count
            if let left = remaining {
                remaining = left - count
                if left - count <= 0 { done = true }
            }
            if !byId {
                skip = originalSkip + processed
            } else if let lastId {
                afterId = lastId
                skip = 0
            } else {
                skip += count
            }
            return PageStep()
        }
        if let last, last.updatedAt > current.updatedAt
            || (last.updatedAt == current.updatedAt && last != current && positionalAt != last.updatedAt) {
            key = last
            skip = 0
            positionalAt = nil
            return PageStep(newKey: last)
        }
        positionalAt = current.updatedAt
        if current.id == nil {
            // Already paging `updatedAt ge T` by position: go on past this page.
            skip += count
            return PageStep()
        }
        // The page ended on (or before) the key it was asked after: page this instant by position from its start.
        key = PullKey(updatedAt: current.updatedAt, id: nil)
        skip = 0
        return PageStep(endsWindow: true)
    }
}
