import OfflineSyncCore
import OfflineSyncStore
/// How a pull pages through the server's records, and what it pushes first.
public struct PullSettings: Sendable {
    /// What a pull pushes before it asks the server for records. Whatever it pushes, a record whose item still has
    /// a pending operation is not stored over the local item.
    public enum PushFirst: Sendable, Hashable {
        /// The pulled table's pending operations, in queue order, when it has any (the default), and first what they
        /// depend on in other tables, as ``SyncContext/push(tables:)`` does.
        case tableOperations
        /// Every pending operation of every table, in queue order, when the pulled table has any: keeps the
        /// order across tables (a parent inserted before its children).
        case allOperations
        /// Nothing: the pull only reads.
        case nothing
    }

    /// Records asked for per request (`$top`); 1 or more (the default is 50). Servers may send fewer. A size the
    /// server refuses with a 400 that states its limit (the Node server's "You cannot request more than 1000 records")
    /// is asked again with that limit, or half the size when none is stated, and the context asks for no more after.
    public var pageSize: Int
    /// Whether the first request asks the server for the total count of matches, so that ``SyncProgress``
    /// can report a total (costs the server a count; off by default, as in the reference clients).
    public var requestsTotalCount: Bool
    /// What the pull pushes first; ``PushFirst/tableOperations`` by default.
    public var pushFirst: PushFirst
    /// Requests in flight at once: pages fetched ahead of storing them, and the queries of a pull of several
    /// (default 4; 1 fetches one page at a time). The push before the pull sends as many at once. Values below 1
    /// count as 1.
    public var maximumConcurrentRequests: Int = 4
    /// How far behind its delta token an incremental pull reads again (default zero: not at all), for rows a server
    /// commits after rows it stamped later: a back end that sets `updatedAt` when its statement runs and commits
    /// later (SQL Server or EF Core under load), or several app instances with skewed clocks, can make a row appear
    /// behind a token already stored, and a pull without a look-back never sees it. Records read again that the store
    /// holds in the same `version` are not stored again; the token never moves back. Costs the server a read of the
    /// rows changed in that stretch on every incremental pull, and one more request when any come back. Must not be
    /// negative.
    public var lookBack: Duration = .zero

    /// Creates settings.
    public init(pageSize: Int = 50) {
        self.init(pageSize: pageSize, requestsTotalCount: false, pushFirst: .tableOperations)
    }

    /// Creates settings that may ask for a total count for progress reporting.
    public init(pageSize: Int = 50, requestsTotalCount: Bool) {
        self.init(pageSize: pageSize, requestsTotalCount: requestsTotalCount, pushFirst: .tableOperations)
    }

    /// Creates settings that choose what the pull pushes first.
    public init(pageSize: Int = 50, requestsTotalCount: Bool = false, pushFirst: PushFirst) {
        self.pageSize = pageSize
        self.requestsTotalCount = requestsTotalCount
        self.pushFirst = pushFirst
    }
}
