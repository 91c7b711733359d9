import Foundation
import OfflineSync

/// Enough of the v2 table protocol (Node server semantics) on a ``LoopbackHTTPServer`` for end-to-end tests:
/// POST insert (409 echoing the request for an existing id), GET by id, PATCH with If-Match (412 with the row),
/// soft DELETE with If-Match, and queries with `updatedAt ge datetimeoffset'…'`, `$orderby`, `$skip`, `$top`,
/// `$inlinecount=allpages` and `__includeDeleted=true`. Versions are `v1`, `v2`, …; every write moves a clock one
/// millisecond from 2024-01-01.
final class TableProtocolServer: @unchecked Sendable {
    private let lock = NSLock()
    private var tables: [String: [String: JSONObject]] = [:]
    private var clock: Int64 = 1_704_067_200_000
    private var versionCounter = 0
    private var log: [String] = []
    private let token: String?
    private var server: LoopbackHTTPServer?

    /// Starts a server; requests must carry `X-ZUMO-AUTH: token` when a token is given.
    init(token: String? = nil) throws {
        self.token = token
        server = try LoopbackHTTPServer { [weak self] request in
            self?.handle(request) ?? ServerResponse(status: 503)
        }
    }

    /// `http://127.0.0.1:<port>`.
    var baseURL: URL { server?.baseURL ?? URL(fileURLWithPath: "/") }

    /// One line per request: `METHOD path?query` (percent-encoded as received).
    var requests: [String] { lock.withLock { log } }

    /// The stored rows of `table`, deleted ones included, by id.
    func rows(_ table: String) -> [String: JSONObject] { lock.withLock { tables[table] ?? [:] } }

    /// Stops the server and waits for its thread to end.
    func stop() { server?.stop() }

    private func handle(_ request: ServerRequest) -> ServerResponse {
        lock.withLock {
            log.append(request.method + " " + request.path + (request.query.isEmpty ? "" : "?" + request.query))
            guard request.headers["zumo-api-version"] == "2.0.0" else { return Self.error(400, "ZUMO-API-VERSION") }
            if let token, request.headers["x-zumo-auth"] != token { return Self.error(401, "Unauthorized") }
            let segments = request.path.split(separator: "/").map { Self.percentDecoded(String($0)) }
            guard segments.count >= 2, segments[0] == "tables" else { return Self.error(404, "no route") }
            let table = segments[1]
            let id = segments.count > 2 ? segments[2] : nil
            let query = Self.queryPairs(request.query)
            switch (request.method, id) {
            case ("POST", nil): return insert(request, table: table)
            case ("GET", nil): return read(table: table, query: query)
            case ("GET", let id?): return lookup(table: table, id: id, includeDeleted: query["__includeDeleted"] == "true")
            case ("PATCH", let id?): return update(request, table: table, id: id)
            case ("DELETE", let id?): return delete(request, table: table, id: id)
            default: return Self.error(405, "method not allowed")
            }
        }
    }

    private func insert(_ request: ServerRequest, table: String) -> ServerResponse {
        guard case .object(var item)? = try? JSONValue(parsing: request.body) else { return Self.error(400, "bad body") }
        let id = item["id"]?.stringValue ?? UUID().uuidString.lowercased()
        if tables[table]?[id.lowercased()] != nil { return Self.json(409, .object(item)) }
        item["id"] = .string(id)
        clock += 1
        item["createdAt"] = .string(Timestamp.string(fromMilliseconds: clock))
        stamp(&item)
        item["deleted"] = false
        tables[table, default: [:]][id.lowercased()] = item
        return Self.row(201, item)
    }

    private func lookup(table: String, id: String, includeDeleted: Bool) -> ServerResponse {
        guard let row = tables[table]?[id.lowercased()], includeDeleted || row["deleted"] != true else {
            return Self.error(404, "The item does not exist")
        }
        return Self.row(200, row)
    }

    private func update(_ request: ServerRequest, table: String, id: String) -> ServerResponse {
        guard var row = tables[table]?[id.lowercased()], row["deleted"] != true else {
            return Self.error(404, "The item does not exist")
        }
        if let failed = preconditionFailure(request, row) { return failed }
        guard case .object(let changes)? = try? JSONValue(parsing: request.body) else { return Self.error(400, "bad body") }
        for (key, value) in changes where !["createdAt", "updatedAt", "deleted", "version", "id"].contains(key) {
            row[key] = value
        }
        stamp(&row)
        tables[table]?[id.lowercased()] = row
        return Self.row(200, row)
    }

    private func delete(_ request: ServerRequest, table: String, id: String) -> ServerResponse {
        guard var row = tables[table]?[id.lowercased()], row["deleted"] != true else {
            return Self.error(404, "The item does not exist")
        }
        if let failed = preconditionFailure(request, row) { return failed }
        row["deleted"] = true
        stamp(&row)
        tables[table]?[id.lowercased()] = row
        return ServerResponse(status: 204)
    }

    private func read(table: String, query: [String: String]) -> ServerResponse {
        var rows = Array((tables[table] ?? [:]).values)
        if query["__includeDeleted"] != "true" { rows.removeAll { $0["deleted"] == true } }
        if let filter = query["$filter"], let range = filter.range(of: "updatedAt ge datetimeoffset'") {
            let rest = filter[range.upperBound...]
            let since = rest.prefix { $0 != "'" }
            guard let bound = Timestamp.milliseconds(from: String(since)) else { return Self.error(400, "bad date") }
            rows.removeAll { (Timestamp.milliseconds(from: $0["updatedAt"]?.stringValue ?? "") ?? 0) < bound }
        }
        let id: (JSONObject) -> String = { $0["id"]?.stringValue ?? "" }
        if query["$orderby"]?.hasPrefix("updatedAt") == true {
            rows.sort { ($0["updatedAt"]?.stringValue ?? "", id($0)) < ($1["updatedAt"]?.stringValue ?? "", id($1)) }
        } else {
            rows.sort { id($0) < id($1) }
        }
        let count = rows.count
        let skip = Int(query["$skip"] ?? "0") ?? 0
        let top = min(Int(query["$top"] ?? "50") ?? 50, 50)
        let page = Array(rows.dropFirst(skip).prefix(top)).map(JSONValue.object)
        if query["$inlinecount"] == "allpages" {
            return Self.json(200, ["results": .array(page), "count": .int(Int64(count))])
        }
        return Self.json(200, .array(page))
    }

    private func preconditionFailure(_ request: ServerRequest, _ row: JSONObject) -> ServerResponse? {
        guard let ifMatch = request.headers["if-match"], let version = row["version"]?.stringValue,
              ifMatch != "\"\(version)\"" else { return nil }
        return Self.row(412, row)
    }

    private func stamp(_ item: inout JSONObject) {
        clock += 1
        versionCounter += 1
        item["updatedAt"] = .string(Timestamp.string(fromMilliseconds: clock))
        item["version"] = .string("v\(versionCounter)")
    }

    private static func row(_ status: Int, _ row: JSONObject) -> ServerResponse {
        var response = json(status, .object(row))
        if let version = row["version"]?.stringValue { response.headers["ETag"] = "\"\(version)\"" }
        return response
    }

    private static func json(_ status: Int, _ value: JSONValue) -> ServerResponse {
        ServerResponse(status: status, headers: ["Content-Type": "application/json"], body: value.jsonBytes())
    }

    private static func error(_ status: Int, _ message: String) -> ServerResponse {
        json(status, ["error": .string(message)])
    }

    private static func queryPairs(_ query: String) -> [String: String] {
        var pairs: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            pairs[percentDecoded(String(parts[0]))] = parts.count > 1 ? percentDecoded(String(parts[1])) : ""
        }
        return pairs
    }

    private static func percentDecoded(_ text: String) -> String {
        text.removingPercentEncoding ?? text
    }
}
