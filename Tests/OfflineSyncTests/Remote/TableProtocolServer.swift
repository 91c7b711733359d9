import Foundation
import OfflineSync

/// Enough of the table protocol on a ``LoopbackHTTPServer`` for end-to-end tests, in either dialect.
///
/// - v2 (Node server semantics): POST insert (409 echoing the request for an existing id), GET by id, PATCH with
///   If-Match (412 with the row), soft DELETE (404 once deleted), queries answered as an array or
///   `{results, count}` with `$inlinecount=allpages`, `__includeDeleted=true`, token in `X-ZUMO-AUTH`.
/// - v3 (Toolkit semantics): 409 with the existing entity, PUT instead of PATCH, 410 for soft-deleted rows, queries
///   answered as `{items, count, nextLink}` with `$count=true` and a bare-query-string `nextLink`,
///   `__includedeleted=true`, token in `Authorization: Bearer`.
/// - Filters: only an incremental pull's bound is understood (``DeltaFilter``); `$orderby` sorts by `updatedAt`
///   (then id) when it names it, else by id, ids compared as `idOrder` says; pages hold at most `pageSize` rows.
/// Versions are `v1`, `v2`, …; every write moves a clock one millisecond from 2024-01-01. ``inject(_:)`` adds
/// ``ServerFaults``: 503s before and after acting, and expiring tokens handed out by `GET /token`;
/// ``dropWriteAnswers(every:onlyOnReusedConnections:)`` closes the connection instead of answering writes it acted on.
final class TableProtocolServer: @unchecked Sendable {
    private let lock = NSLock()
    private var tables: [String: [String: JSONObject]] = [:]
    private var clock: Int64 = 1_704_067_200_000
    private var versionCounter = 0
    private var log: [String] = []
    private var token: String?
    private let version: APIVersion
    private let pageSize: Int
    private var server: LoopbackHTTPServer?
    private var faults: ServerFaults?
    private var reused: [String] = []
    private var sortedRows: [String: [SortedRow]] = [:]
    private let idOrder: IDOrder
    private let nodeAnswers: Bool
    private var drops: (every: Int, onlyOnReusedConnections: Bool)?
    private var writesEligibleForDrop = 0
    private var dropped = 0
    private var serving = 0
    private var mostServedAtOnce = 0

    /// Starts a server speaking `version`; requests must carry `token` when one is given. With a `responseDelay`
    /// every answer leaves that long after the server acted, a window in which a client killed loses it.
    ///
    /// `nodeAnswers` makes it answer as the real Node server (azure-mobile-apps 3.0.0) does where this one would be
    /// kinder: its by-id route ignores `__includeDeleted` (404 for a soft-deleted row), and `$top` above 1000 gets
    /// `400 {"error":"You cannot request more than 1000 records"}`.
    init(version: APIVersion = .v2, token: String? = nil, pageSize: Int = 50, responseDelay: Duration = .zero,
         idOrder: IDOrder = .bytes, nodeAnswers: Bool = false) throws {
        self.version = version
        self.idOrder = idOrder
        self.nodeAnswers = nodeAnswers
        self.token = token
        self.pageSize = pageSize
        let delay = Double(responseDelay.components.seconds) + Double(responseDelay.components.attoseconds) / 1e18
        server = try LoopbackHTTPServer { [weak self] request in
            self?.countServing(+1)
            defer { self?.countServing(-1) }
            let response = self?.handle(request) ?? ServerResponse(status: 503)
            if delay > 0 { Thread.sleep(forTimeInterval: delay) }
            self?.holdIfAsked(request)
            return response
        }
    }

    /// The most requests the server was serving at one time (from arrival to answer): whether a client really had
    /// several in flight.
    var maximumRequestsAtOnce: Int { lock.withLock { mostServedAtOnce } }

    private func countServing(_ change: Int) {
        lock.withLock {
            serving += change
            mostServedAtOnce = max(mostServedAtOnce, serving)
        }
    }

    private var holdsNextWrite = false
    private let holding = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    /// Makes the server hold its answer to the next write (after acting on it) until ``releaseHeldAnswer()`` or
    /// ``stop()``.
    func holdNextWriteAnswer() { lock.withLock { holdsNextWrite = true } }

    /// Waits until the server holds an answer; false after `seconds`.
    func waitUntilHolding(seconds: Double = 120) async -> Bool {
        let holding = holding
        return await onOwnThread { holding.wait(timeout: .now() + seconds) == .success }
    }

    /// Lets the held answer go.
    func releaseHeldAnswer() { released.signal() }

    private func holdIfAsked(_ request: ServerRequest) {
        guard request.method != "GET" else { return }
        let holds = lock.withLock {
            defer { holdsNextWrite = false }
            return holdsNextWrite
        }
        guard holds else { return }
        holding.signal()
        // Until released or stopped, however long: a loaded machine may take its time to kill the client first.
        released.wait()
    }

    /// `http://127.0.0.1:<port>`.
    var baseURL: URL { server?.baseURL ?? URL(fileURLWithPath: "/") }

    /// One line per request: `METHOD path?query` (percent-encoded as received).
    var requests: [String] { lock.withLock { log } }

    /// The stored rows of `table`, deleted ones included, by lower-cased id.
    func rows(_ table: String) -> [String: JSONObject] { lock.withLock { tables[table] ?? [:] } }

    /// Every copy of the row `id` of `table` the server ever stored, oldest first.
    func history(_ table: String, id: String) -> [JSONObject] { lock.withLock { stored[table + "/" + id.lowercased()] ?? [] } }

    private var stored: [String: [JSONObject]] = [:]

    /// Stores `row` as the row `id` of `table`, and in its history (the lock held).
    private func put(_ row: JSONObject, table: String, id: String) {
        tables[table, default: [:]][id.lowercased()] = row
        stored[table + "/" + id.lowercased(), default: []].append(row)
    }

    /// Stores `rows` in `table` as inserts would (system properties stamped), without a request.
    func seed(_ rows: [JSONObject], table: String) {
        lock.withLock {
            for var row in rows {
                guard let id = row["id"]?.stringValue else { continue }
                clock += 1
                if version == .v2 { row["createdAt"] = .string(Timestamp.string(fromMilliseconds: clock)) }
                stamp(&row)
                row["deleted"] = false
                put(row, table: table, id: id)
            }
        }
    }

    /// Gives the rows `ids` of `table` one new `updatedAt` and each a new version, as a bulk update on the server does.
    func batchUpdate(ids: [String], table: String, fields: JSONObject) {
        lock.withLock {
            let instant = clock + 1
            for id in ids {
                guard var row = tables[table]?[id.lowercased()] else { continue }
                for (name, value) in fields { row[name] = value }
                clock = instant - 1
                stamp(&row)
                put(row, table: table, id: id)
            }
        }
    }

    /// Replaces the `version` of the stored row `id` of `table` with `version` as it is, as a broken server would
    /// hold it (no new `updatedAt`, no history entry).
    func setVersion(_ version: JSONValue, table: String, id: String) {
        lock.withLock {
            sortedRows = [:]
            tables[table]?[id.lowercased()]?["version"] = version
        }
    }

    /// Before answering each later read (numbered from 0), updates the rows whose ids `edits` names, as another client
    /// would between two page requests: each gets `edited: <read number>` and a new version and `updatedAt`.
    func editBeforeEachRead(_ edits: @escaping @Sendable (Int) -> [String]) { lock.withLock { readEdits = edits } }

    private var readEdits: (@Sendable (Int) -> [String])?
    private var readsSeen = 0

    /// Runs the edits asked for before a read (the lock held).
    private func editBeforeRead(table: String) {
        guard let readEdits else { return }
        let number = readsSeen
        readsSeen += 1
        for id in readEdits(number) {
            guard var row = tables[table]?[id.lowercased()] else { continue }
            row["edited"] = .int(Int64(number))
            stamp(&row)
            put(row, table: table, id: id)
        }
    }

    /// Accepts only `token` from now on (as after the old one expired).
    func acceptToken(_ token: String?) { lock.withLock { self.token = token } }

    /// Injects `faults` into every later request, or stops injecting them (nil).
    func inject(_ faults: ServerFaults?) { lock.withLock { self.faults = faults } }

    /// Closes the connection instead of sending the answer to every `every`-th write, after acting on it (counting only
    /// writes that arrived on a reused connection when `onlyOnReusedConnections`); nil `every` stops it.
    func dropWriteAnswers(every: Int?, onlyOnReusedConnections: Bool = false) {
        lock.withLock {
            drops = every.map { (max(1, $0), onlyOnReusedConnections) }
            writesEligibleForDrop = 0
        }
    }

    /// How many answers ``dropWriteAnswers(every:onlyOnReusedConnections:)`` dropped.
    var droppedAnswers: Int { lock.withLock { dropped } }

    /// The lines of ``requests`` that arrived on a reused (kept-alive) connection.
    var requestsOnReusedConnections: [String] { lock.withLock { reused } }

    /// `METHOD path` of every request whose head declared a body that did not arrive whole.
    var truncatedRequests: [String] { server?.truncatedRequests ?? [] }

    /// The faults injected so far.
    var injectedFaults: ServerFaults? { lock.withLock { faults } }

    /// Stops the server, letting a held answer go first, and waits for its threads to end.
    func stop() {
        released.signal()
        server?.stop()
    }

    private var includeDeletedName: String { version == .v2 ? "__includeDeleted" : "__includedeleted" }

    private func handle(_ request: ServerRequest) -> ServerResponse {
        lock.withLock {
            let line = request.method + " " + request.path + (request.query.isEmpty ? "" : "?" + request.query)
            log.append(line)
            if request.isOnReusedConnection { reused.append(line) }
            let response = answer(request)
            return dropsAnswer(to: request) ? .dropped : response
        }
    }

    /// Whether the answer to `request`, acted on, is dropped (the lock held).
    private func dropsAnswer(to request: ServerRequest) -> Bool {
        guard request.method != "GET", let drops, !drops.onlyOnReusedConnections || request.isOnReusedConnection
        else { return false }
        writesEligibleForDrop += 1
        guard writesEligibleForDrop % drops.every == 0 else { return false }
        dropped += 1
        return true
    }

    /// Acts on a request and answers it, faults included (the lock held).
    private func answer(_ request: ServerRequest) -> ServerResponse {
        if let faults, request.path == "/token" { return Self.json(200, ["token": .string(faults.currentToken)]) }
        guard request.headers["zumo-api-version"] == version.headerValue else {
            return Self.error(400, "ZUMO-API-VERSION")
        }
        let sent = version == .v2 ? request.headers["x-zumo-auth"] : request.headers["authorization"]
        if var faults {
            let fate = faults.next(token: version == .v2 ? sent : sent.map { String($0.dropFirst("Bearer ".count)) })
            self.faults = faults
            switch fate {
            case .unauthorized: return Self.error(401, "Unauthorized")
            case .unavailable: return Self.error(503, "Service Unavailable")
            case .actThenFail:
                _ = route(request)
                return Self.error(503, "Service Unavailable")
            case .act: break
            }
        } else if let token, sent != (version == .v2 ? token : "Bearer " + token) {
            return Self.error(401, "Unauthorized")
        }
        return route(request)
    }

    /// Acts on a table request and answers it.
    private func route(_ request: ServerRequest) -> ServerResponse {
        let segments = request.path.split(separator: "/").map { Self.percentDecoded(String($0)) }
        guard segments.count >= 2, segments[0] == "tables" else { return Self.error(404, "no route") }
        let table = segments[1]
        let id = segments.count > 2 ? segments[2] : nil
        let query = Self.queryPairs(request.query)
        let includeDeleted = query[includeDeletedName] == "true"
        switch (request.method, id) {
        case ("POST", nil): return insert(request, table: table)
        case ("GET", nil): return read(table: table, query: query, rawQuery: request.query)
        case ("GET", let id?): return lookup(table: table, id: id, includeDeleted: includeDeleted && !nodeAnswers)
        case ("PATCH", let id?) where version == .v2: return update(request, table: table, id: id)
        case ("PUT", let id?) where version == .v3: return update(request, table: table, id: id)
        case ("DELETE", let id?): return delete(request, table: table, id: id)
        default: return Self.error(405, "method not allowed")
        }
    }

    private func insert(_ request: ServerRequest, table: String) -> ServerResponse {
        guard case .object(var item)? = try? JSONValue(parsing: request.body) else { return Self.error(400, "bad body") }
        let id = item["id"]?.stringValue ?? UUID().uuidString.lowercased()
        if let existing = tables[table]?[id.lowercased()] {
            return version == .v2 ? Self.json(409, .object(item)) : Self.row(409, existing)
        }
        item["id"] = .string(id)
        clock += 1
        if version == .v2 { item["createdAt"] = .string(Timestamp.string(fromMilliseconds: clock)) }
        stamp(&item)
        item["deleted"] = false
        put(item, table: table, id: id)
        return Self.row(201, item)
    }

    /// The live row, or the answer for a missing (404) or soft-deleted (v2 404, v3 410) one.
    private func liveRow(table: String, id: String, includeDeleted: Bool = false) -> Result<JSONObject, Failure> {
        guard let row = tables[table]?[id.lowercased()] else {
            return .failure(Failure(response: Self.error(404, "The item does not exist")))
        }
        if row["deleted"] == true, !includeDeleted {
            return .failure(Failure(response: version == .v2 ? Self.error(404, "The item does not exist")
                                                             : ServerResponse(status: 410)))
        }
        return .success(row)
    }

    private func lookup(table: String, id: String, includeDeleted: Bool) -> ServerResponse {
        switch liveRow(table: table, id: id, includeDeleted: includeDeleted) {
        case .failure(let failure): return failure.response
        case .success(let row): return Self.row(200, row)
        }
    }

    private func update(_ request: ServerRequest, table: String, id: String) -> ServerResponse {
        guard case .success(var row) = liveRow(table: table, id: id) else {
            return lookup(table: table, id: id, includeDeleted: false)
        }
        if let failed = preconditionFailure(request, row) { return failed }
        guard case .object(let changes)? = try? JSONValue(parsing: request.body) else { return Self.error(400, "bad body") }
        let system: Set<String> = ["createdAt", "updatedAt", "deleted", "version", "id"]
        if version == .v3 { row = row.filter { system.contains($0.key) } }   // PUT replaces the whole item
        for (key, value) in changes where !system.contains(key) { row[key] = value }
        stamp(&row)
        put(row, table: table, id: id)
        return Self.row(200, row)
    }

    private func delete(_ request: ServerRequest, table: String, id: String) -> ServerResponse {
        guard case .success(var row) = liveRow(table: table, id: id) else {
            return lookup(table: table, id: id, includeDeleted: false)
        }
        if let failed = preconditionFailure(request, row) { return failed }
        row["deleted"] = true
        stamp(&row)
        put(row, table: table, id: id)
        return ServerResponse(status: 204)
    }

    private func read(table: String, query: [String: String], rawQuery: String) -> ServerResponse {
        editBeforeRead(table: table)
        let byUpdatedAt = query["$orderby"]?.hasPrefix("updatedAt") == true
        var rows = sorted(table, byUpdatedAt: byUpdatedAt)[...]
        let top = Int(query["$top"] ?? "\(Int.max)") ?? Int.max
        if nodeAnswers, top > 1000, top != Int.max { return Self.error(400, "You cannot request more than 1000 records") }
        if let filter = query["$filter"], let id = Self.idEquality(filter) {
            rows = rows.filter { $0.id.lowercased() == id.lowercased() }[...]
        } else if let filter = query["$filter"], let after = Self.idAfter(filter) {
            let precedes = idOrder.precedes
            rows = rows.filter { precedes(after, $0.id) }[...]
        } else if let filter = query["$filter"] {
            guard let bound = DeltaFilter(filter) else { return Self.error(400, "unsupported filter") }
            let precedes = idOrder.precedes
            let kept: (SortedRow) -> Bool = { bound.keeps(milliseconds: $0.milliseconds, id: $0.id, idPrecedes: precedes) }
            rows = byUpdatedAt ? rows[Self.firstIndex(in: rows, where: kept)...] : rows.filter(kept)[...]
        }
        if query[includeDeletedName] != "true" { rows = rows.filter { $0.row["deleted"] != true }[...] }
        let count = rows.count
        let skip = Int(query["$skip"] ?? "0") ?? 0
        let page = rows.dropFirst(skip).prefix(min(top, pageSize)).map { JSONValue.object($0.row) }
        switch version {
        case .v2:
            if query["$inlinecount"] == "allpages" {
                return Self.json(200, ["results": .array(page), "count": .int(Int64(count))])
            }
            return Self.json(200, .array(page))
        case .v3:
            var body: JSONObject = ["items": .array(page)]
            if query["$count"] == "true" { body["count"] = .int(Int64(count)) }
            let next = skip + page.count
            if next < count, page.count < top {
                let kept = rawQuery.split(separator: "&").filter { !$0.hasPrefix("$skip=") && !$0.hasPrefix("$top=") }
                let remaining = top == Int.max ? [] : ["$top=\(top - page.count)"]
                body["nextLink"] = .string((kept.map(String.init) + ["$skip=\(next)"] + remaining).joined(separator: "&"))
            }
            return Self.json(200, .object(body))
        }
    }

    /// The rows of `table` with their `updatedAt` in milliseconds, sorted by `updatedAt` then id, or by id; kept
    /// until the next write, so that a long paged read does not sort every page again.
    private func sorted(_ table: String, byUpdatedAt: Bool) -> [SortedRow] {
        let key = (byUpdatedAt ? "updatedAt " : "id ") + table
        if let cached = sortedRows[key] { return cached }
        var rows = (tables[table] ?? [:]).values.map { row in
            SortedRow(milliseconds: Timestamp.milliseconds(from: row["updatedAt"]?.stringValue ?? "") ?? 0,
                      id: row["id"]?.stringValue ?? "", row: row)
        }
        let precedes = idOrder.precedes
        if byUpdatedAt {
            rows.sort { $0.milliseconds != $1.milliseconds ? $0.milliseconds < $1.milliseconds : precedes($0.id, $1.id) }
        } else {
            rows.sort { precedes($0.id, $1.id) }
        }
        sortedRows[key] = rows
        return rows
    }

    /// The first index of `rows` (sorted by `updatedAt` then id) that is `kept`, by binary search.
    private static func firstIndex(in rows: ArraySlice<SortedRow>, where kept: (SortedRow) -> Bool) -> Int {
        var low = rows.startIndex, high = rows.endIndex
        while low < high {
            let middle = (low + high) / 2
            if kept(rows[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    private func preconditionFailure(_ request: ServerRequest, _ row: JSONObject) -> ServerResponse? {
        guard let ifMatch = request.headers["if-match"], let version = row["version"]?.stringValue,
              ifMatch != "\"\(version)\"" else { return nil }
        return Self.row(412, row)
    }

    private func stamp(_ item: inout JSONObject) {
        sortedRows = [:]
        clock += 1
        versionCounter += 1
        item["updatedAt"] = .string(Timestamp.string(fromMilliseconds: clock))
        item["version"] = .string("v\(versionCounter)")
    }

    /// The id of a filter `(id eq '…')`, the read of one row through the list route.
    private static func idEquality(_ filter: String) -> String? { quotedOperand(of: "(id eq '", in: filter) }

    /// The id of a filter `(id gt '…')`, a full pull's page after the last id it stored.
    private static func idAfter(_ filter: String) -> String? { quotedOperand(of: "(id gt '", in: filter) }

    /// The operand of `prefix…')`, read scalar by scalar (`''` is one quote, as an OData server reads it); nil when
    /// the filter has another shape or a lone quote ends the literal early (an injection, refused).
    private static func quotedOperand(of prefix: String, in filter: String) -> String? {
        let scalars = Array(filter.unicodeScalars), head = Array(prefix.unicodeScalars), tail = Array("')".unicodeScalars)
        guard scalars.count >= head.count + tail.count, Array(scalars.prefix(head.count)) == head,
              Array(scalars.suffix(tail.count)) == tail else { return nil }
        var operand = String.UnicodeScalarView()
        var index = head.count
        let end = scalars.count - tail.count
        while index < end {
            if scalars[index] == "'" {
                guard index + 1 < end, scalars[index + 1] == "'" else { return nil }
                index += 1
            }
            operand.append(scalars[index])
            index += 1
        }
        return String(operand)
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

/// A stored row with its `updatedAt` in milliseconds and its id.
private struct SortedRow {
    var milliseconds: Int64
    var id: String
    var row: JSONObject
}

/// A server answer carried as an error value.
private struct Failure: Error {
    var response: ServerResponse
}
