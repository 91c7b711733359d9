/// The pull page loop as a pure value: from what each page held to the next request,
/// or the end. No I/O: the reference request sequences are unit tests of this value.
///
/// - A full pull pages with `skip = originalSkip + records so far` and `top = min(pageSize, remaining)`, and
///   stops at an empty page or when the query's `top` is reached.
/// - An incremental pull asks for `updatedAt ge token` ordered by `updatedAt`. When a page's greatest
///   `updatedAt` is past the token, the token moves there and `skip` restarts at 0; otherwise every record of
///   the page shares the token's timestamp and `skip` grows by the page (skip paging inside a run of equal
///   timestamps). Each request either moves the token forward or grows `skip`, so the loop ends; and the token
///   only moves to a timestamp whose earlier records were all stored, so no record is skipped.
struct PullPager: Sendable, Hashable {
    /// One request to send.
    struct Request: Sendable, Hashable {
        /// `$skip`.
        var skip: Int
        /// `$top`.
        var top: Int
        /// The `updatedAt ge` bound in milliseconds since 1970 (incremental pulls only).
        var token: Int64?
    }

    /// What a page changed.
    struct PageStep: Sendable, Hashable {
        /// The new delta token to store with the page, when it moved.
        var newToken: Int64?
    }

    let pageSize: Int
    let incremental: Bool
    private let originalSkip: Int
    private var remaining: Int?
    private var processed = 0
    private(set) var token: Int64?
    private(set) var pagesReceived = 0
    private(set) var recordsReceived = 0
    private var done = false
    private var skip: Int

    /// A full (non-incremental) pull of at most `limit` records starting at `skip`.
    init(skip: Int?, limit: Int?, pageSize: Int) {
        self.pageSize = pageSize
        self.incremental = false
        self.originalSkip = max(0, skip ?? 0)
        self.skip = originalSkip
        self.remaining = limit
        self.done = (limit ?? 1) <= 0
    }

    /// An incremental pull from `token` (nil: no stored token, start at the epoch).
    init(token: Int64?, pageSize: Int) {
        self.pageSize = pageSize
        self.incremental = true
        self.originalSkip = 0
        self.skip = 0
        self.token = token
    }

    /// How many more records a full pull with a `top` may store; nil when unbounded (or incremental).
    var remainingRecords: Int? { incremental ? nil : remaining }

    /// The next request, or nil when the pull is finished.
    var nextRequest: Request? {
        guard !done else { return nil }
        return Request(skip: skip, top: min(pageSize, remaining ?? Int.max), token: incremental ? (token ?? 0) : nil)
    }

    /// Records a received page: its record count and (incremental) its greatest `updatedAt` in milliseconds,
    /// counting records that are skipped locally too.
    mutating func pageReceived(count: Int, maxUpdatedAt: Int64?) -> PageStep {
        pagesReceived += 1
        recordsReceived += count
        guard count > 0 else {
            done = true
            return PageStep(newToken: nil)
        }
        if incremental {
            let pageMax = max(maxUpdatedAt ?? 0, 0)
            if token.map({ $0 < pageMax }) ?? true {
                token = pageMax
                processed = 0
                skip = 0
                return PageStep(newToken: pageMax)
            }
            processed += count
            skip = processed
            return PageStep(newToken: nil)
        }
        processed += count
        if let left = remaining {
            remaining = left - count
            if left - count <= 0 { done = true }
        }
        skip = originalSkip + processed
        return PageStep(newToken: nil)
    }
}
