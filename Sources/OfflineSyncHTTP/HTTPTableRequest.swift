import OfflineSyncCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One HTTP request of the table protocol before it touches the network: what ``HTTPRemote`` sends.
///
/// Built by ``HTTPTableRequestBuilder`` from a ``SyncRemote`` call, so request building is tested without a network.
struct HTTPTableRequest: Sendable, Hashable {
    /// One header line.
    struct Header: Sendable, Hashable {
        /// The header name, e.g. `ZUMO-API-VERSION`.
        var name: String
        /// The header value.
        var value: String
    }

    /// What the request is for; decides how its answer is read.
    enum Purpose: Sendable, Hashable {
        case insert, update, delete, read, lookup
    }

    /// The purpose of the request.
    var purpose: Purpose
    /// The table the request is about.
    var table: String
    /// The id in the path, for update, delete and lookup.
    var itemID: String?
    /// `GET`, `POST`, `PATCH`, `PUT` or `DELETE`.
    var method: String
    /// The percent-encoded path below the base URL, e.g. `/tables/TodoItem/a%20b`.
    var path: String
    /// The query pairs in the order they are sent.
    var query: [QueryPair]
    /// A complete URL to use instead of base URL, path and query (a followed `nextLink`).
    var absoluteURL: URL?
    /// The headers in the order they are set.
    var headers: [Header]
    /// The JSON body, if any.
    var body: [UInt8]?

    /// The value of the header `name` (case-insensitive), if set.
    func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// `METHOD /path`, for error messages (never holds headers, so never the token).
    var summary: String {
        if let absoluteURL { return "\(method) \(absoluteURL.absoluteString)" }
        return "\(method) \(path)"
    }

    /// The URL of this request under `baseURL` (its query and fragment dropped, its path kept as a prefix).
    func url(base baseURL: URL) -> URL? {
        if let absoluteURL { return absoluteURL }
        var text = HTTPTableRequest.root(of: baseURL) + path
        if !query.isEmpty { text += "?" + query.map(\.text).joined(separator: "&") }
        return URL(string: text)
    }

    /// `baseURL` without query, fragment and trailing slashes.
    static func root(of baseURL: URL) -> String {
        var text = baseURL.absoluteString
        if let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = String(text[..<end]) }
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
