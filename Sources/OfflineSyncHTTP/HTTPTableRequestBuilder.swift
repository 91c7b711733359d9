import OfflineSyncCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns ``SyncRemote`` calls into ``HTTPTableRequest``s: method, path, headers, query and body, per ``APIVersion``.
///
/// Pure: no network, no clock. Table names and ids are validated (``TableName``, ``ItemID``) and percent-encoded
/// as one path segment each, so nothing can leave `/tables/`.
struct HTTPTableRequestBuilder: Sendable {
    /// The dialect to speak.
    var apiVersion: APIVersion
    /// The token for `X-ZUMO-AUTH` (v2) or `Authorization: Bearer` (v3).
    var authToken: String?
    /// The `X-ZUMO-INSTALLATION-ID` value.
    var installationID: String

    /// The `User-Agent` value.
    static var userAgent: String { "OfflineSync/\(OfflineSyncVersion.current) (lang=Swift)" }

    /// `POST /tables/{table}` with the item minus system properties.
    func insert(_ item: JSONObject, table: String) throws(HTTPRemoteError) -> HTTPTableRequest {
        let tablePath = try Self.tablePath(table)
        var itemID: String?
        switch item["id"] {
        case .none, .some(.null): itemID = nil
        case .some(.string(let id)): itemID = try Self.checkedID(id, table: table)
        case .some(let other):
            throw HTTPRemoteError.invalidID(table: table, id: other.jsonString(), reason: "it is not a string")
        }
        return request(.insert, table: table, id: itemID, method: "POST", path: tablePath,
                       features: "OL", ifMatch: nil, body: Self.body(item))
    }

    /// `PATCH` (v2) or `PUT` (v3) `/tables/{table}/{id}`, with `If-Match` from the item's `version`.
    func update(_ item: JSONObject, table: String) throws(HTTPRemoteError) -> HTTPTableRequest {
        let tablePath = try Self.tablePath(table)
        guard let id = item["id"]?.stringValue else { throw HTTPRemoteError.missingID(table: table) }
        let path = tablePath + "/" + PercentEncoding.pathSegment(try Self.checkedID(id, table: table))
        let version = try Self.precondition(item["version"], table: table, id: id)
        return request(.update, table: table, id: id, method: apiVersion == .v2 ? "PATCH" : "PUT", path: path,
                       features: version == nil ? "OL" : "OC,OL", ifMatch: version, body: Self.body(item))
    }

    /// `DELETE /tables/{table}/{id}`, with `If-Match` when `version` is given; no body.
    func delete(id: String, version: String?, table: String) throws(HTTPRemoteError) -> HTTPTableRequest {
        let path = try Self.tablePath(table) + "/" + PercentEncoding.pathSegment(try Self.checkedID(id, table: table))
        let version = try Self.precondition(version.map(JSONValue.string), table: table, id: id)
        return request(.delete, table: table, id: id, method: "DELETE", path: path,
                       features: version == nil ? "OL" : "OC,OL", ifMatch: version, body: nil)
    }

    /// `GET /tables/{table}?…` for a query.
    func read(_ query: Query) throws(HTTPRemoteError) -> HTTPTableRequest {
        let path = try Self.tablePath(query.table)
        do {
            try query.validate(requireIdentifiers: true)
        } catch {
            throw HTTPRemoteError.invalidQuery(table: query.table, error)
        }
        var result = request(.read, table: query.table, id: nil, method: "GET", path: path,
                             features: Self.isIncrementalPull(query) ? "TQ,OL,IP" : "TQ,OL", ifMatch: nil, body: nil)
        result.query = ODataQueryString.pairs(for: query, version: apiVersion)
        return result
    }

    /// `GET` of a `nextLink` (already resolved and checked by the caller).
    func follow(_ url: URL, table: String) throws(HTTPRemoteError) -> HTTPTableRequest {
        var result = request(.read, table: table, id: nil, method: "GET", path: try Self.tablePath(table),
                             features: "TQ,OL,LH", ifMatch: nil, body: nil)
        result.absoluteURL = url
        return result
    }

    /// `GET /tables/{table}/{id}` including soft-deleted rows: reads the server's row after a 409 or 412 whose body
    /// is not the row.
    func lookup(id: String, table: String) throws(HTTPRemoteError) -> HTTPTableRequest {
        let path = try Self.tablePath(table) + "/" + PercentEncoding.pathSegment(try Self.checkedID(id, table: table))
        var result = request(.lookup, table: table, id: id, method: "GET", path: path,
                             features: "OL", ifMatch: nil, body: nil)
        result.query = [QueryPair(encoding: apiVersion.includeDeletedParameter, "true")]
        return result
    }

    /// The path of a table, `/tables/{table}`, after checking the name.
    static func tablePath(_ table: String) throws(HTTPRemoteError) -> String {
        guard TableName.isValid(table) else { throw HTTPRemoteError.invalidTableName(table) }
        return "/tables/" + PercentEncoding.pathSegment(table)
    }

    /// `id` if it is a valid item id.
    static func checkedID(_ id: String, table: String) throws(HTTPRemoteError) -> String {
        if let reason = ItemID.violation(in: id) { throw HTTPRemoteError.invalidID(table: table, id: id, reason: reason) }
        return id
    }

    /// The `If-Match` version of a write: nil for none (missing, null or empty), else the version, which must be a
    /// string that can be a header value: libcurl drops a header value holding a line break, which would send the
    /// write without its precondition, so such a write is refused instead.
    static func precondition(_ version: JSONValue?, table: String, id: String) throws(HTTPRemoteError) -> String? {
        switch version {
        case .none, .some(.null): return nil
        case .some(.string(let text)) where text.isEmpty: return nil
        case .some(.string(let text)) where TransportPolicy.isHeaderSafe(text): return text
        case .some: throw HTTPRemoteError.invalidVersion(table: table, id: id)
        }
    }

    /// The JSON body: the item without system properties (matched case-insensitively).
    static func body(_ item: JSONObject) -> [UInt8] {
        let sent = SystemProperties.removingAll(from: item)
        var bytes: [UInt8] = []
        JSONWriter(sortedKeys: true).write(sent, into: &bytes)
        return bytes
    }

    /// `"version"` with `"` escaped as `\"`, as the reference clients write If-Match.
    static func entityTag(_ version: String) -> String {
        "\"" + version.replacing("\"", with: "\\\"") + "\""
    }

    /// Whether a read looks like the engine's incremental pull (a filter on `updatedAt`, ordered by `updatedAt`
    /// ascending, deleted rows included): the reference adds the `IP` feature code to those.
    static func isIncrementalPull(_ query: Query) -> Bool {
        query.includeDeleted && query.orderBy.first == .ascending("updatedAt")
            && (query.filter?.fieldNames.contains("updatedAt") ?? false)
    }

    private func request(_ purpose: HTTPTableRequest.Purpose, table: String, id: String?, method: String, path: String,
                         features: String, ifMatch version: String?, body: [UInt8]?) -> HTTPTableRequest {
        typealias Header = HTTPTableRequest.Header
        var headers = [Header(name: "ZUMO-API-VERSION", value: apiVersion.headerValue)]
        if apiVersion == .v2 { headers.append(Header(name: "X-ZUMO-FEATURES", value: features)) }
        headers.append(Header(name: "X-ZUMO-INSTALLATION-ID", value: installationID))
        if let authToken {
            switch apiVersion {
            case .v2: headers.append(Header(name: "X-ZUMO-AUTH", value: authToken))
            case .v3: headers.append(Header(name: "Authorization", value: "Bearer " + authToken))
            }
        }
        headers.append(Header(name: "User-Agent", value: Self.userAgent))
        headers.append(Header(name: "Accept", value: "application/json"))
        if let version { headers.append(Header(name: "If-Match", value: Self.entityTag(version))) }
        if body != nil { headers.append(Header(name: "Content-Type", value: "application/json")) }
        return HTTPTableRequest(purpose: purpose, table: table, itemID: id, method: method, path: path, query: [],
                             absoluteURL: nil, headers: headers, body: body)
    }
}
