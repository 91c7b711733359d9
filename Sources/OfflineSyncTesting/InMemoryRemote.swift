public import OfflineSyncCore
import OfflineSyncStore
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An in-process back end with the reference server's table semantics, for unit tests of code that syncs.
///
/// ```swift
/// let remote = InMemoryRemote(pageSize: 50)
/// await remote.seed([["id": "a", "text": "from the server"]], table: "TodoItem")
/// let context = SyncContext(dataSource: InMemoryDataSource(), remote: remote)
/// try await context.table("TodoItem").pull()
/// await remote.failNext(1, with: .network("offline"))      // the next call fails
/// #expect(await remote.requests == ["GET TodoItem", "GET TodoItem"])
/// ```
///
/// Semantics (those of the Node and .NET v2 servers):
/// - every write sets a new opaque `version` (base64, like the real servers) and `updatedAt` (UTC with
///   milliseconds, from the injectable clock); inserts set `createdAt`;
/// - insert of an existing id (also soft-deleted) answers 409 with the server's row; a body holding
///   `createdAt`, `updatedAt` or `deleted` answers 400, as the Node server does;
/// - update and delete compare the `If-Match` version and answer 412 with the server's row on a mismatch,
///   404 for an unknown or soft-deleted id; update merges the body's fields into the row (PATCH);
/// - delete is a soft delete (`deleted: true`, new version and `updatedAt`);
/// - reads hide deleted rows unless `includeDeleted`, evaluate filters with the local semantics
///   (``Filter/matches(_:)``), sort by `orderBy` then `id` (stable ties), and return at most `pageSize` rows;
///   a short page is not the end, an empty page is.
public actor InMemoryRemote: SyncRemote {
    /// The most rows one read returns, whatever `top` asks.
    public let pageSize: Int
    /// One entry per call, short form: `"POST t/id"`, `"PATCH t/id"`, `"DELETE t/id"`, `"GET t"`.
    public private(set) var requests: [String] = []
    /// One entry per call with the details (If-Match, body, query).
    public private(set) var requestLog: [RemoteRequest] = []

    var tables: [String: [String: JSONObject]] = [:]
    /// Bumped on every change of a table; invalidates ``sortedRows``.
    var generations: [String: Int] = [:]
    /// The rows of the last read's table in its order, for paging through them without sorting again.
    private var sortedRows: (key: SortedRowsKey, generation: Int, rows: SortedRows)?

    private struct SortedRowsKey: Equatable {
        var table: String
        var orderBy: [SortKey]
        var includeDeleted: Bool
    }
    private var versionCounter: Int64 = 0
    private var clock: @Sendable () -> Date
    private var faults: [(error: RemoteError, method: RemoteMethod?)] = []
    private var lostResponses: [RemoteMethod?] = []
    private var offline = false
    private var latency: Duration = .zero

    /// Creates an empty back end.
    /// - Parameter pageSize: the most rows one read returns (the reference servers use 50).
    public init(pageSize: Int = 50) {
        self.pageSize = max(1, pageSize)
        self.clock = { Date() }
    }

    /// Creates an empty back end whose timestamps come from `clock`.
    public init(pageSize: Int = 50, clock: @escaping @Sendable () -> Date) {
        self.pageSize = max(1, pageSize)
        self.clock = clock
    }

    // MARK: - Test controls

    /// Makes the next `count` calls (of any kind) fail with `error` before they reach the data.
    public func failNext(_ count: Int, with error: RemoteError) {
        faults += Array(repeating: (error, nil), count: max(0, count))
    }

    /// Makes the next `count` calls of `method` fail with `error` before they reach the data.
    public func failNext(_ count: Int, with error: RemoteError, on method: RemoteMethod) {
        faults += Array(repeating: (error, method), count: max(0, count))
    }

    /// Makes the next `count` writes (or writes of `method`) apply on the server and then throw
    /// `.network("…response was lost")`, as when a connection drops after the server committed.
    public func loseNextResponses(_ count: Int = 1, on method: RemoteMethod? = nil) {
        lostResponses += Array(repeating: method, count: max(0, count))
    }

    /// While offline every call throws `.network` and changes nothing.
    public func setOffline(_ offline: Bool) {
        self.offline = offline
    }

    /// Makes every request wait `latency` before it is served, as over a network; requests in flight together wait
    /// together (the actor serves none of them while it waits). `.zero` turns it off.
    public func setLatency(_ latency: Duration) {
        self.latency = max(.zero, latency)
    }

    /// Waits the latency, if any; a cancelled request fails as a lost connection would, changing nothing.
    private func travel() async throws {
        guard latency > .zero else { return }
        do {
            try await Task.sleep(for: latency)
        } catch {
            throw RemoteError.network("The request was cancelled before the in-memory remote served it.")
        }
    }

    /// Replaces the clock that stamps `createdAt`/`updatedAt`.
    public func setClock(_ clock: @escaping @Sendable () -> Date) {
        self.clock = clock
    }

    /// Stamps every write from now on with `date`, so that many records share one `updatedAt`.
    public func freezeClock(at date: Date) {
        clock = { date }
    }

    /// Forgets the request log.
    public func clearRequests() {
        requests.removeAll()
        requestLog.removeAll()
    }

    // MARK: - SyncRemote

    /// Creates the item; returns the server's copy (with version, createdAt, updatedAt).
    public func insert(_ item: JSONObject, table: String) async throws -> JSONObject {
        try await travel()
        var id: String?
        switch item["id"] {
        case nil, .null?: id = UUID().uuidString.lowercased()
        case .string(let text)? where ItemID.isValid(text): id = text
        default: id = nil
        }
        log(RemoteRequest(method: .insert, table: table, id: id ?? item["id"]?.stringValue, body: item))
        try checkFaults(.insert)
        if let reserved = Self.reservedProperty(in: item) {
            throw RemoteError.server(status: 400, message: "Cannot insert item with property '\(reserved)' as it is reserved")
        }
        guard let id else { throw RemoteError.server(status: 400, message: "The item's id is not a valid string id.") }
        var row = item
        if let existing = tables[table]?[key(id)] { throw RemoteError.conflict(serverItem: existing) }
        row["id"] = .string(id)
        stamp(&row, creating: true)
        row["deleted"] = false
        put(row, id: id, table: table)
        try checkLostResponse(.insert)
        return row
    }

    /// A system property other than `version` (the If-Match value) in a body the client sent, as the server
    /// refuses it; matched case-insensitively, as the HTTP remote removes them.
    private static func reservedProperty(in item: JSONObject) -> String? {
        item.keys.sorted().first { $0 != "version" && SystemProperties.isSystemProperty($0) }
    }

    /// Merges the item's fields into the row; checks If-Match (`item["version"]`); returns the server's copy.
    public func update(_ item: JSONObject, table: String) async throws -> JSONObject {
        try await travel()
        let id = item["id"]?.stringValue
        let ifMatch = item["version"]?.stringValue
        log(RemoteRequest(method: .update, table: table, id: id, ifMatch: ifMatch, body: item))
        try checkFaults(.update)
        if let reserved = Self.reservedProperty(in: item) {
            throw RemoteError.server(status: 400, message: "Cannot update item with property '\(reserved)' as it is reserved")
        }
        guard let id, var row = tables[table]?[key(id)], row["deleted"]?.boolValue != true else {
            throw RemoteError.notFound
        }
        if let ifMatch, ifMatch != row["version"]?.stringValue { throw RemoteError.preconditionFailed(serverItem: row) }
        for (name, value) in item where name != "id" && name != "version" { row[name] = value }
        stamp(&row, creating: false)
        put(row, id: id, table: table)
        try checkLostResponse(.update)
        return row
    }

    /// Soft-deletes the item; checks If-Match (`version`) when given.
    public func delete(id: String, version: String?, table: String) async throws {
        try await travel()
        log(RemoteRequest(method: .delete, table: table, id: id, ifMatch: version))
        try checkFaults(.delete)
        guard var row = tables[table]?[key(id)], row["deleted"]?.boolValue != true else { throw RemoteError.notFound }
        if let version, version != row["version"]?.stringValue { throw RemoteError.preconditionFailed(serverItem: row) }
        row["deleted"] = true
        stamp(&row, creating: false)
        put(row, id: id, table: table)
        try checkLostResponse(.delete)
    }

    /// One page of the query's results: at most ``pageSize`` rows.
    public func read(_ query: Query) async throws -> RemotePage {
        try await travel()
        log(RemoteRequest(method: .read, table: query.table, query: query))
        try checkFaults(.read)
        do {
            try query.validate(requireIdentifiers: true)
        } catch {
            throw RemoteError.server(status: 400, message: error.description)
        }
        let sorted = sorted(for: query)
        let rows = sorted.rows
        let skip = query.skip ?? 0, top = min(query.top ?? Int.max, pageSize)
        var items: [JSONObject] = [], matched = 0
        let tested = sorted.everyCandidateMatches(query) ? nil : query.filter
        for row in rows[sorted.firstCandidate(for: query)...] where tested?.matches(row) ?? true {
            if matched >= skip, items.count < top { items.append(row) }
            matched += 1
            if items.count == top, !query.includeTotalCount { break }
        }
        if let select = query.select {
            let fields = Set(select + ["id"])
            items = items.map { $0.filter { fields.contains($0.key) } }
        }
        return RemotePage(items: items, totalCount: query.includeTotalCount ? matched : nil)
    }

    /// The visible rows of the query's table sorted by `orderBy` then `id`, reused while the table is unchanged.
    private func sorted(for query: Query) -> SortedRows {
        let key = SortedRowsKey(table: query.table, orderBy: query.orderBy, includeDeleted: query.includeDeleted)
        let generation = generations[query.table] ?? 0
        if let cached = sortedRows, cached.key == key, cached.generation == generation { return cached.rows }
        let rows = (tables[query.table] ?? [:]).values.filter { query.includeDeleted || $0["deleted"]?.boolValue != true }
        let byUpdatedAt = query.orderBy == [.ascending("updatedAt")] || query.orderBy == [.ascending("updatedAt"), .ascending("id")]
            ? SortedRows.sortedByUpdatedAt(rows) : nil
        let result = byUpdatedAt
            ?? SortedRows(Query(table: query.table, orderBy: query.orderBy + [.ascending("id")]).evaluate(over: rows).items,
                          byUpdatedAt: query.orderBy.first == .ascending("updatedAt"))
        sortedRows = (key, generation, result)
        return result
    }

    /// Stores a row and invalidates cached reads of its table.
    func put(_ row: JSONObject, id: String, table: String) {
        tables[table, default: [:]][key(id)] = row
        generations[table, default: 0] += 1
    }

    // MARK: - Internals

    func key(_ id: String) -> String { id.lowercased() }

    /// Sets a new version and `updatedAt` (and `createdAt` when creating).
    func stamp(_ row: inout JSONObject, creating: Bool) {
        versionCounter += 1
        var bytes = [UInt8](repeating: 0, count: 8)
        for index in 0..<8 { bytes[index] = UInt8(truncatingIfNeeded: versionCounter >> (8 * (7 - index))) }
        row["version"] = .string(Data(bytes).base64EncodedString())
        let now = JSONValue.string(Timestamp.string(from: clock()))
        row["updatedAt"] = now
        if creating || row["createdAt"] == nil { row["createdAt"] = now }
    }

    private func log(_ request: RemoteRequest) {
        requests.append(request.description)
        requestLog.append(request)
    }

    private func checkFaults(_ method: RemoteMethod) throws {
        if offline { throw RemoteError.network("The in-memory remote is offline.") }
        if let index = faults.firstIndex(where: { $0.method == nil || $0.method == method }) {
            throw faults.remove(at: index).error
        }
    }

    private func checkLostResponse(_ method: RemoteMethod) throws {
        if let index = lostResponses.firstIndex(where: { $0 == nil || $0 == method }) {
            lostResponses.remove(at: index)
            throw RemoteError.network("The server applied the \(method.rawValue) but the response was lost.")
        }
    }
}
