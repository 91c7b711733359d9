public import OfflineSyncCore
import OfflineSyncStore

/// The four calls of ``SyncRemote``, for fault injection and the request log of ``InMemoryRemote``.
public enum RemoteMethod: String, Sendable, Hashable, CaseIterable {
    /// `insert` (`POST`).
    case insert = "POST"
    /// `update` (`PATCH`).
    case update = "PATCH"
    /// `delete` (`DELETE`).
    case delete = "DELETE"
    /// `read` (`GET`).
    case read = "GET"
}

/// One call an ``InMemoryRemote`` received, with what a test may want to check about it.
public struct RemoteRequest: Sendable, Hashable, CustomStringConvertible {
    /// Which call.
    public var method: RemoteMethod
    /// The table.
    public var table: String
    /// The item id (insert: the body's id or the one the server generated; update, delete); nil for a read.
    public var id: String?
    /// The version sent as `If-Match` (update: the body's `version`; delete: the `version` argument).
    public var ifMatch: String?
    /// The body of an insert or update.
    public var body: JSONObject?
    /// The query of a read.
    public var query: Query?

    /// Creates a log entry.
    public init(method: RemoteMethod, table: String, id: String? = nil, ifMatch: String? = nil,
                body: JSONObject? = nil, query: Query? = nil) {
        self.method = method
        self.table = table
        self.id = id
        self.ifMatch = ifMatch
        self.body = body
        self.query = query
    }

    /// The short form of ``InMemoryRemote/requests``: `"POST t/id"`, `"PATCH t/id"`, `"DELETE t/id"`, `"GET t"`.
    public var description: String {
        if let id { return "\(method.rawValue) \(table)/\(id)" }
        return "\(method.rawValue) \(table)"
    }
}
