import OfflineSyncCore
import OfflineSyncStore
/// What one query's pull knows while it runs: its pager, what it learned of the server's page size, the progress it
/// reports and the last delta token stored without waiting for durability.
struct PullRun: Sendable {
    let query: Query
    let queryId: String?
    let settings: PullSettings
    var pager: PullPager
    let tokenReset: Bool
    /// The total to report, once known.
    var total: Int?
    /// Records per page the server is known to return (see ``PullWindow``).
    var knownPageSize: Int
    /// The last delta token stored with a page whose apply did not wait for durability.
    var undurableToken: StoreChange?
    /// How many records the last short page held, while no page since was full.
    private var lastShortPage: Int?
    /// The stretch behind the stored token this incremental pull reads again, until it has paged past it.
    var lookBack: PullLookBack?

    init(query: Query, queryId: String?, settings: PullSettings, pager: PullPager, tokenReset: Bool) {
        self.query = query
        self.queryId = queryId
        self.settings = settings
        self.pager = pager
        self.tokenReset = tokenReset
        self.total = query.top
        self.knownPageSize = settings.pageSize
    }

    /// Asks for pages of at most `size` records from now on: the server refused bigger ones.
    mutating func limitPageSize(to size: Int) {
        pager.limitPageSize(to: size)
        knownPageSize = min(knownPageSize, pager.pageSize)
    }

    /// Learns the server's page size from a page that held fewer records than asked (not `full`): at once when the
    /// page links to a next one (v3), or when two short pages in a row held the same count (v2 has no links: a single
    /// short page may as well be the last). A full page forgets the short one before it.
    mutating func learnPageSize(from page: RemotePage, full: Bool) {
        guard !full else {
            lastShortPage = nil
            return
        }
        let count = page.items.count
        guard count >= 2 else { return }
        if page.nextLink != nil || lastShortPage == count { knownPageSize = count }
        lastShortPage = count
    }

    /// The progress report of `phase` as the pull stands.
    func progress(_ phase: SyncProgress.Phase) -> SyncProgress {
        SyncProgress(activity: .pull(table: query.table, queryId: queryId), phase: phase, completed: pager.recordsReceived,
                     total: total, pages: pager.pagesReceived, tokenReset: phase == .started && tokenReset)
    }

    /// The query sent to the remote for `request`: deleted records included, the page's `skip` and `top`, the total
    /// count asked with the first request when the settings say so, for an incremental pull the records after the
    /// request's key (``PullKey/filter``) ordered by ``PullKey/order``, and for a full pull by id the ids after the
    /// request's, ordered by `id`.
    func remoteQuery(for request: PullPager.Request) -> Query {
        var remoteQuery = query
        remoteQuery.includeDeleted = true
        remoteQuery.skip = request.skip
        remoteQuery.top = request.top
        remoteQuery.includeTotalCount = settings.requestsTotalCount && pager.pagesReceived == 0
        if let key = request.key {
            let bound = key.filter
            remoteQuery.filter = query.filter.map { $0 && bound } ?? bound
            remoteQuery.orderBy = PullKey.order
        } else if request.byId {
            if let afterId = request.afterId {
                let bound = Field("id") > .string(afterId)
                remoteQuery.filter = query.filter.map { $0 && bound } ?? bound
            }
            remoteQuery.orderBy = [.ascending("id")]
        }
        return remoteQuery
    }
}
