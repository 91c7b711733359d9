import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// `HTTPRemote` against a real HTTP/1.1 server on 127.0.0.1 (``TableProtocolServer``), over real sockets.
@Suite(.serialized)
struct HTTPEndToEndTests {
    private func remote(_ server: TableProtocolServer, token: String? = nil) -> HTTPRemote {
        HTTPRemote(baseURL: server.baseURL, apiVersion: .v2, authToken: token,
                   configuration: HTTPRemoteConfiguration(timeout: .seconds(20)))
    }

    @Test func insertUpdateConflictDeleteAndPagedRead() async throws {
        let server = try TableProtocolServer(token: "e2e-token")
        defer { server.stop() }
        let remote = remote(server, token: "e2e-token")

        // Insert: the server's copy comes back with system properties and the ETag version.
        let inserted = try await remote.insert(["id": "a1", "text": "buy milk", "complete": false], table: "TodoItem")
        #expect(inserted["version"] == "v1")
        #expect(inserted["createdAt"]?.stringValue != nil)

        // Insert of the same id: Node echoes the request, so the row is read before throwing.
        await #expect {
            _ = try await remote.insert(["id": "A1", "text": "other"], table: "TodoItem")
        } throws: { error in
            let row = conflictRow(error)
            return row?["text"] == "buy milk" && row?["version"] == "v1"
        }

        // Update with the right version, then with a stale one: 412 carries the server's row.
        var changed = inserted
        changed["text"] = "buy oat milk"
        let updated = try await remote.update(changed, table: "TodoItem")
        #expect(updated["version"] == "v2")
        #expect(updated["text"] == "buy oat milk")
        await #expect {
            _ = try await remote.update(changed, table: "TodoItem")
        } throws: { error in
            let row = preconditionFailedRow(error)
            return row?["version"] == "v2" && row?["text"] == "buy oat milk"
        }

        // Delete with a stale version fails, with the right one succeeds; a second delete is 404.
        await #expect {
            try await remote.delete(id: "a1", version: "v1", table: "TodoItem")
        } throws: { preconditionFailedRow($0)?["version"] == "v2" }
        try await remote.delete(id: "a1", version: "v2", table: "TodoItem")
        await #expect {
            try await remote.delete(id: "a1", version: nil, table: "TodoItem")
        } throws: { if case RemoteError.notFound = $0 { true } else { false } }

        // Paged read: five rows, pages of two, then an empty page; the soft-deleted a1 only with includeDeleted.
        for index in 1...5 {
            _ = try await remote.insert(["id": .string("b\(index)"), "text": .string("item \(index)")], table: "TodoItem")
        }
        var ids: [String] = []
        var skip = 0
        while true {
            let page = try await remote.read(Query(table: "TodoItem", orderBy: [.ascending("id")], skip: skip, top: 2))
            if page.items.isEmpty { break }
            ids += page.items.compactMap { $0["id"]?.stringValue }
            skip += page.items.count
        }
        #expect(ids == ["b1", "b2", "b3", "b4", "b5"])

        let incremental = Query(table: "TodoItem", filter: Field("updatedAt") >= "1970-01-01T00:00:00.000Z",
                                orderBy: [.ascending("updatedAt")], skip: 0, top: 50, includeDeleted: true)
        let everything = try await remote.read(incremental)
        #expect(everything.items.count == 6)
        #expect(everything.items.contains { $0["id"] == "a1" && $0["deleted"] == true })

        let counted = try await remote.read(Query(table: "TodoItem", top: 1, includeTotalCount: true))
        #expect(counted.items.count == 1)
        #expect(counted.totalCount == 5)

        #expect(server.requests.first == "POST /tables/TodoItem")
        #expect(server.requests.contains("GET /tables/TodoItem/A1?__includeDeleted=true"))
        #expect(server.requests.contains(
            "GET /tables/TodoItem?$filter=(updatedAt%20ge%20datetimeoffset'1970-01-01T00%3A00%3A00.000Z')"
                + "&$orderby=updatedAt%20asc&$skip=0&$top=50&__includeDeleted=true"))
    }

    @Test func incrementalFilterSkipsOlderRows() async throws {
        let server = try TableProtocolServer()
        defer { server.stop() }
        let remote = remote(server)
        let first = try await remote.insert(["id": "x"], table: "T")
        _ = try await remote.insert(["id": "y"], table: "T")
        let token = try #require(first["updatedAt"]?.stringValue)
        let page = try await remote.read(Query(table: "T", filter: Field("updatedAt") >= .string(token),
                                               orderBy: [.ascending("updatedAt")], skip: 1, top: 50,
                                               includeDeleted: true))
        #expect(page.items.map { $0["id"] } == ["y"])
    }

    @Test func idsWithSpacesRoundTripThroughThePath() async throws {
        let server = try TableProtocolServer()
        defer { server.stop() }
        let remote = remote(server)
        let item = try await remote.insert(["id": "a b&c", "text": "x"], table: "T")
        try await remote.delete(id: "a b&c", version: item["version"]?.stringValue, table: "T")
        #expect(server.requests.last == "DELETE /tables/T/a%20b%26c")
        #expect(server.rows("T")["a b&c"]?["deleted"] == true)
    }

    @Test func wrongTokenIsUnauthorized() async throws {
        let server = try TableProtocolServer(token: "right")
        defer { server.stop() }
        await #expect {
            _ = try await remote(server, token: "wrong").read(Query(table: "T"))
        } throws: { error in
            guard case RemoteError.unauthorized = error else { return false }
            return !String(describing: error).contains("wrong")
        }
    }

    @Test func stoppedServerIsANetworkError() async throws {
        let server = try TableProtocolServer()
        let remote = remote(server)
        server.stop()
        await #expect {
            _ = try await remote.read(Query(table: "T"))
        } throws: { error in
            guard case RemoteError.network(let message) = error else { return false }
            return message.hasPrefix("GET /tables/T ") && message.contains("refused")
        }
    }

    @Test func v3InsertReplaceConflictDeleteGoneAndNextLinkPaging() async throws {
        let server = try TableProtocolServer(version: .v3, token: "v3-token", pageSize: 2)
        defer { server.stop() }
        let remote = HTTPRemote(baseURL: server.baseURL, apiVersion: .v3, authToken: "v3-token")

        let inserted = try await remote.insert(["id": "a1", "text": "buy milk", "note": "n"], table: "TodoItem")
        #expect(inserted["version"] == "v1")
        await #expect {
            try await remote.insert(["id": "a1", "text": "other"], table: "TodoItem")
        } throws: { error in
            let row = conflictRow(error)
            return row?["text"] == "buy milk" && row?["version"] == "v1"
        }
        #expect(!server.requests.contains { $0.hasPrefix("GET") }, "v3's 409 carries the row: no lookup")

        // PUT replaces the whole item: "note" is gone.
        let replaced = try await remote.update(["id": "a1", "text": "buy oat milk", "version": "v1"], table: "TodoItem")
        #expect(replaced["note"] == nil)
        #expect(replaced["version"] == "v2")
        await #expect {
            try await remote.update(["id": "a1", "text": "stale", "version": "v1"], table: "TodoItem")
        } throws: { preconditionFailedRow($0)?["version"] == "v2" }
        try await remote.delete(id: "a1", version: "v2", table: "TodoItem")
        await #expect {
            try await remote.delete(id: "a1", version: nil, table: "TodoItem")
        } throws: { if case RemoteError.gone = $0 { true } else { false } }

        // Five more rows, pages of two: follow nextLink until there is none.
        for index in 1...5 { _ = try await remote.insert(["id": .string("b\(index)")], table: "TodoItem") }
        var page = try await remote.read(Query(table: "TodoItem", orderBy: [.ascending("id")], includeTotalCount: true,
                                               includeDeleted: true))
        var ids = page.items.compactMap { $0["id"]?.stringValue }
        #expect(page.totalCount == 6)
        while let link = page.nextLink {
            page = try await remote.read(nextLink: link, table: "TodoItem")
            ids += page.items.compactMap { $0["id"]?.stringValue }
        }
        #expect(ids == ["a1", "b1", "b2", "b3", "b4", "b5"])

        // The v3 delta filter, with gt and cast(…).
        let since = try #require(replaced["updatedAt"]?.stringValue)
        let delta = try await remote.read(Query(table: "TodoItem", filter: Field("updatedAt") > .string(since),
                                                orderBy: [.ascending("updatedAt")], skip: 0, top: 50,
                                                includeDeleted: true))
        #expect(delta.items.first?["id"] == "a1")
        #expect(delta.items.first?["deleted"] == true)
    }

    @Test func configuredTimeoutEndsAStalledRequest() async throws {
        let release = ReleaseGate()
        let server = try LoopbackHTTPServer { _ in
            release.wait()
            return ServerResponse(status: 200, body: Array("[]".utf8))
        }
        defer {
            release.open()
            server.stop()
        }
        let remote = HTTPRemote(baseURL: server.baseURL, configuration: HTTPRemoteConfiguration(timeout: .milliseconds(300)))
        await #expect {
            _ = try await remote.read(Query(table: "T"))
        } throws: { error in
            guard case RemoteError.network(let message) = error else { return false }
            return message == "GET /tables/T timed out after 0.3 s."
        }
    }

    @Test func cancellingTheTaskEndsAnInFlightRequest() async throws {
        let release = ReleaseGate()
        let (arrivals, arrived) = AsyncStream<Void>.makeStream()
        let server = try LoopbackHTTPServer { _ in
            arrived.yield()
            release.wait()
            return ServerResponse(status: 200, body: Array("[]".utf8))
        }
        defer {
            release.open()
            server.stop()
        }
        let remote = HTTPRemote(baseURL: server.baseURL)
        let task = Task { try await remote.read(Query(table: "T")) }
        let watcher = Task {
            _ = await task.result
            arrived.finish()   // never wait for an arrival that cannot come
        }
        for await _ in arrivals { break }
        task.cancel()
        let result = await task.result
        await watcher.value
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test func eightReadsInFlightReachTheServerTogether() async throws {
        let rendezvous = Rendezvous(parties: 8)
        let server = try LoopbackHTTPServer { _ in
            // A session allowing fewer connections holds the later reads back until these waits end alone.
            let together = rendezvous.arrive(within: 30)
            return ServerResponse(status: 200, body: Array((together ? #"[{"id":"together"}]"# : "[]").utf8))
        }
        defer { server.stop() }
        let remote = HTTPRemote(baseURL: server.baseURL)
        let answers = try await withThrowingTaskGroup(of: RemotePage.self) { group in
            for _ in 0..<8 { group.addTask { try await remote.read(Query(table: "T")) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 8)
        #expect(answers.allSatisfy { $0.items.first?["id"] == "together" })
    }

    /// The full offline cycle through the sync engine: offline inserts, push, changes by another client, pull.
    @Test func offlineInsertPushPullCycle() async throws {
        let server = try TableProtocolServer(token: "e2e-token")
        defer { server.stop() }
        let remote = HTTPRemote(baseURL: server.baseURL, apiVersion: .v2, authToken: "e2e-token")
        let context = SyncContext(dataSource: InMemoryDataSource(), remote: remote)
        let table = context.table("TodoItem")
        try await table.insert(["id": "a1", "text": "buy milk", "complete": false])
        try await table.insert(["id": "a2", "text": "call mum", "complete": false])
        #expect(try await context.pendingOperations().count == 2)
        let pushed = try await context.push()
        #expect(pushed.pushed == 2)
        #expect(server.rows("TodoItem").count == 2)

        // Another client changes a1 and deletes a2 on the server.
        let other = HTTPRemote(baseURL: server.baseURL, apiVersion: .v2, authToken: "e2e-token")
        var a1 = try #require(server.rows("TodoItem")["a1"])
        a1["text"] = "buy oat milk"
        _ = try await other.update(a1, table: "TodoItem")
        let a2 = try #require(server.rows("TodoItem")["a2"])
        try await other.delete(id: "a2", version: a2["version"]?.stringValue, table: "TodoItem")

        try await table.pull(Query(table: "TodoItem"), queryId: "all")
        #expect(try await table.read(id: "a1")?["text"] == "buy oat milk")
        #expect(try await table.read(id: "a2") == nil)
        #expect(try await context.pendingOperations().isEmpty)
        #expect(server.requests.contains { $0.hasPrefix("GET /tables/TodoItem?$filter=(updatedAt%20ge%20datetimeoffset'") })

        // A second pull starts from the stored token and brings the boundary rows again, then an empty page.
        try await table.pull(Query(table: "TodoItem"), queryId: "all")
        #expect(try await table.read(Query(table: "TodoItem")).items.count == 1)
    }
}

/// The server's row a 409 `RemoteError.conflict` carries, or nil for any other error (or a 409 without a row).
private func conflictRow(_ error: any Error) -> JSONObject? {
    guard case RemoteError.conflict(let row?) = error else { return nil }
    return row
}

/// The server's row a 412 `RemoteError.preconditionFailed` carries, or nil for any other error (or a 412 without a row).
private func preconditionFailedRow(_ error: any Error) -> JSONObject? {
    guard case RemoteError.preconditionFailed(let row?) = error else { return nil }
    return row
}
