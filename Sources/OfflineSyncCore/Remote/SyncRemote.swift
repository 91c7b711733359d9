#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The back end the sync engine pushes to and pulls from.
///
/// This protocol is open. OfflineSync ships `HTTPRemote` (Azure Mobile Apps v2 and Datasync v3 servers) and, in
/// `OfflineSyncTesting`, `InMemoryRemote`. An implementation maps every failure to ``RemoteError`` so that the
/// engine can tell a conflict (409/412) from a lost connection.
public protocol SyncRemote: Sendable {
    /// Creates the item; returns the server's copy (with version, createdAt, updatedAt).
    func insert(_ item: JSONObject, table: String) async throws -> JSONObject
    /// Replaces the item; sends If-Match with item["version"] when present; returns the server's copy.
    func update(_ item: JSONObject, table: String) async throws -> JSONObject
    /// Deletes the item; sends If-Match with `version` when given.
    func delete(id: String, version: String?, table: String) async throws
    /// One page of a query's results.
    func read(_ query: Query) async throws -> RemotePage
}

/// One page of query results from a remote.
public struct RemotePage: Sendable {
    /// The records of this page.
    public var items: [JSONObject]
    /// The count of all matches, when the query asked for it and the server reported it.
    public var totalCount: Int?
    /// The next page's address (protocol v3 paging); nil otherwise.
    public var nextLink: URL?

    /// Creates a page.
    public init(items: [JSONObject], totalCount: Int? = nil, nextLink: URL? = nil) {
        self.items = items
        self.totalCount = totalCount
        self.nextLink = nextLink
    }
}

/// Why a remote call failed, by what the server (or the network) said.
public enum RemoteError: Error, Sendable {
    /// 409 on insert: the id exists; carries the server's row when known.
    case conflict(serverItem: JSONObject?)
    /// 412 on update/delete: version mismatch; carries the server's row when known.
    case preconditionFailed(serverItem: JSONObject?)
    /// 404: no such record.
    case notFound
    /// 410: the record is deleted on the server (v3).
    case gone
    /// 401: the credentials were refused.
    case unauthorized
    /// No response: offline, timeout, refused.
    case network(String)
    /// Any other non-2xx answer.
    case server(status: Int, message: String)
    /// A body that is not what the protocol says.
    case invalidResponse(String)
}

extension RemoteError: CustomStringConvertible {
    /// A sentence saying what the server answered.
    public var description: String {
        switch self {
        case .conflict: return "The server already has an item with this id (409 Conflict)."
        case .preconditionFailed: return "The item changed on the server since it was read (412 Precondition Failed)."
        case .notFound: return "The server has no such item (404 Not Found)."
        case .gone: return "The item was deleted on the server (410 Gone)."
        case .unauthorized: return "The server refused the credentials (401 Unauthorized); sign in again."
        case .network(let message): return "The server could not be reached: \(message)"
        case .server(let status, let message): return "The server answered \(status): \(message)"
        case .invalidResponse(let message): return "The server's answer is not valid for the table protocol: \(message)"
        }
    }

    /// The HTTP status this error stands for, when it came from an answer.
    public var statusCode: Int? {
        switch self {
        case .conflict: return 409
        case .preconditionFailed: return 412
        case .notFound: return 404
        case .gone: return 410
        case .unauthorized: return 401
        case .server(let status, _): return status
        case .network, .invalidResponse: return nil
        }
    }
}
