/// How a pull pages through the server's records.
public struct PullSettings: Sendable {
    /// Records asked for per request (`$top`); 1 or more (the default is 50). Servers may send fewer.
    public var pageSize: Int
    /// Whether the first request asks the server for the total count of matches, so that ``SyncProgress``
    /// can report a total (costs the server a count; off by default, as in the reference clients).
    public var requestsTotalCount: Bool

    /// Creates settings.
    public init(pageSize: Int = 50) {
        self.pageSize = pageSize
        self.requestsTotalCount = false
    }

    /// Creates settings that may ask for a total count for progress reporting.
    public init(pageSize: Int = 50, requestsTotalCount: Bool) {
        self.pageSize = pageSize
        self.requestsTotalCount = requestsTotalCount
    }
}
