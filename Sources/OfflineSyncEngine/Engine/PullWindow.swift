import OfflineSyncCore
import OfflineSyncStore
/// The pages a pull asks for ahead of storing them: a pure value, from the request the one-at-a-time pager
/// (``PullPager``) would send next to the requests that may be in flight with it.
///
/// - Page 0 is the pager's own request. Page `k ≥ 1` starts at the **last** record of page `k - 1`
///   (`skip = base.skip + k × (pageSize − 1)`, `top = pageSize`): consecutive pages overlap by one record. An
///   incremental pull's window starts after the pager's key, the last record stored, so its `skip` counts only the
///   records since then, never positions from the start of a run of equal timestamps.
/// - The pull stores pages in order. Page `k ≥ 1` is stored only when its first record equals the last record of
///   the page stored before it (``continues(_:after:)``); then nothing between them can have been skipped, even if
///   rows changed on the server between the two requests (a row that moves shifts every later position, and the
///   shift shows at the overlap). Otherwise every page ahead is dropped and a new window starts from the pager's next
///   request, which is as safe as a one-at-a-time pull.
/// - Pages ahead are asked for only while the pages before came back full: a short page ends the window, and the
///   pager confirms the end one request at a time.
/// - `pageSize` is what the server is known to return per page: the pull's page size, or the server's own when it
///   returned fewer records with a `nextLink` (v3), or, in a v2 dialect, the count of a short page that was not the
///   last. It must be 2 or more to go ahead (an overlap of one record leaves nothing new in a page of one).
struct PullWindow: Sendable {
    /// The pager's request: page 0.
    let base: PullPager.Request
    /// Records per page the server is known to return.
    let pageSize: Int
    /// How many more records the pull may store (a full pull with a `top`); nil when unbounded.
    let remaining: Int?
    /// Whether pages after page 0 may be asked for at all: more than one request may be in flight, and the page size
    /// leaves something new in a page after its overlap and fits the pager's request.
    let goesAhead: Bool
    /// For a pull by key or by id, the newer request later pages count from: after page `index`'s last record but
    /// one, so that page `index + 1` starts with page `index`'s last record (see ``rebase(afterPage:lastButOne:)``).
    private var rebased: (index: Int, request: PullPager.Request)?

    /// The window that starts with `base`, asking for pages of `pageSize` ahead when `maximumConcurrentRequests`
    /// allows it.
    init(base: PullPager.Request, pageSize: Int, remaining: Int?, maximumConcurrentRequests: Int) {
        self.base = base
        self.pageSize = pageSize
        self.remaining = remaining
        self.goesAhead = maximumConcurrentRequests > 1 && pageSize >= 2 && pageSize <= base.top
    }

    /// The request for page `index`, or nil when the window holds no such page (past the pull's `top`).
    func request(_ index: Int) -> PullPager.Request? {
        guard index > 0 else { return base }
        guard goesAhead else { return nil }
        if let rebased, index > rebased.index {
            var request = rebased.request
            request.skip = (index - rebased.index - 1) * (pageSize - 1)
            return request
        }
        let start = index * (pageSize - 1)
        let top = remaining.map { min(pageSize, $0 - start) } ?? pageSize
        guard top > 1 else { return nil }
        var request = base
        request.skip = base.skip + start
        request.top = top
        return request
    }

    /// Asks for the pages after `index` after `lastButOne`, page `index`'s last record but one, so that a pull by key or
    /// by id skips only the records since its latest stored page, as a server's cost grows with `$skip`. The overlap
    /// check still holds across the two bases: when rows changed, the next page does not continue the last one and the
    /// window ends. A window paging by position, or bounded by a `top`, is not rebased; nor is one whose record has no
    /// key.
    mutating func rebase(afterPage index: Int, lastButOne: JSONObject) {
        guard remaining == nil else { return }
        var request = PullPager.Request(skip: 0, top: pageSize, key: nil, afterId: nil, byId: base.byId)
        if base.key != nil {
            guard let key = PullKey(of: lastButOne) else { return }
            request.key = key
        } else if base.byId {
            guard let id = lastButOne["id"]?.stringValue else { return }
            request.afterId = id
        } else {
            return
        }
        rebased = (index, request)
    }

    /// Whether `page`, the page after one whose last record was `previousLast`, starts where that one ended.
    static func continues(_ page: [JSONObject], after previousLast: JSONObject?) -> Bool {
        guard let first = page.first, let previousLast else { return false }
        return first == previousLast
    }
}
