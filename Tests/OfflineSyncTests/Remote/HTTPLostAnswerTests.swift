import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Answers lost when a server closes a connection after acting on a write, over real HTTP with kept-alive
/// connections: a write is never sent without its body (the server records any that is), and a push ends with every
/// write applied once, at one and at eight in flight. No durations are asserted: a write left without its body would
/// show up as a truncated request.
@Suite(.serialized)
struct HTTPLostAnswerTests {
    private static let configuration: HTTPRemoteConfiguration = {
        var configuration = HTTPRemoteConfiguration(timeout: .seconds(60))
        configuration.retryPolicy = HTTPRetryPolicy(maximumAttempts: 4, initialDelay: .milliseconds(20))
        return configuration
    }()

    #if canImport(FoundationNetworking)
    /// Why writes go on connections of their own on Linux: libcurl resends a write whose reused connection closed
    /// without an answer, headers only. If this starts failing, libcurl (or Foundation) resends the body now.
    ///
    /// libcurl reuses the read's connection for the write as a rule; on a loaded machine it may open a new one, which
    /// shows nothing. Such a round is tried again (up to five rounds); the claim is checked on a round whose write went
    /// on the reused connection.
    @Test func libcurlResendsAWriteWithoutItsBodyUnlessItHasAConnectionOfItsOwn() async throws {
        for _ in 1...5 {
            let writesOnReusedConnections = LockedValue(0)
            let server = try LoopbackHTTPServer(receiveTimeout: 1) { request in
                if request.method == "POST", request.isOnReusedConnection {
                    writesOnReusedConnections.withLock { $0 += 1 }
                    return .dropped
                }
                return ServerResponse(status: request.method == "POST" ? 201 : 200, body: Array("{}".utf8))
            }
            defer { server.stop() }
            let session = URLSession(configuration: .ephemeral)
            defer { session.finishTasksAndInvalidate() }
            var read = URLRequest(url: server.baseURL.appendingPathComponent("tables/T"))
            read.httpMethod = "GET"
            var write = URLRequest(url: server.baseURL.appendingPathComponent("tables/T"))
            write.httpMethod = "POST"
            write.httpBody = Data(#"{"id":"a","text":"hello"}"#.utf8)

            _ = try await DeadlineExchange.run(read, session: session, timeout: .seconds(60))
            var plainWriteFailed = false
            do {
                _ = try await DeadlineExchange.run(write, session: session, timeout: .seconds(60))
            } catch {
                plainWriteFailed = true
            }
            if writesOnReusedConnections.current == 0 { continue }
            #expect(plainWriteFailed, "the write dropped on a reused connection was answered")
            #expect(server.truncatedRequests == ["POST /tables/T (0 of 25 body bytes)"])

            _ = try await FreshConnectionWrites.exchange(read, session: session, timeout: .seconds(60))
            let (_, response) = try await FreshConnectionWrites.exchange(write, session: session, timeout: .seconds(60))
            #expect((response as? HTTPURLResponse)?.statusCode == 201)
            #expect(server.truncatedRequests.count == 1)
            return
        }
        Issue.record("In five rounds libcurl never sent the write on the read's kept-alive connection")
    }
    #endif

    @Test(arguments: [1, 8])
    func aPushToAServerDroppingWritesOnReusedConnectionsSendsEveryWriteWhole(inFlight: Int) async throws {
        // Answers that take a few milliseconds, as over a network, so that a push keeps `inFlight` requests at once.
        let server = try TableProtocolServer(responseDelay: .milliseconds(3))
        defer { server.stop() }
        server.dropWriteAnswers(every: 1, onlyOnReusedConnections: true)
        let remote = HTTPRemote(baseURL: server.baseURL, configuration: Self.configuration)
        let context = SyncContext(dataSource: InMemoryDataSource(), remote: remote)
        let table = context.table("T")
        for index in 0..<24 { try await table.insert(["id": .string("r\(index)"), "text": .string("first \(index)")]) }
        // Reads until one reuses a kept-alive connection, which the writes could reuse too. (Two are usually enough; on
        // a loaded machine libcurl may open a second connection before the first is back in its cache.)
        for _ in 0..<20 where !server.requestsOnReusedConnections.contains(where: { $0.hasPrefix("GET ") }) {
            _ = try await remote.read(Query(table: "T"))
        }
        #expect(server.requestsOnReusedConnections.contains { $0.hasPrefix("GET ") }, "no connection was kept alive")

        try await pushUntilDone(context, inFlight: inFlight)
        for index in 0..<8 { try await table.update(["id": .string("r\(index)"), "text": .string("second \(index)")]) }
        for index in 20..<24 { try await table.delete(["id": .string("r\(index)")]) }
        try await pushUntilDone(context, inFlight: inFlight)

        #expect(server.truncatedRequests.isEmpty)
        #expect(inFlight == 1 ? server.maximumRequestsAtOnce == 1 : server.maximumRequestsAtOnce > 1)
        #if canImport(FoundationNetworking)
        #expect(!server.requestsOnReusedConnections.contains { !$0.hasPrefix("GET ") })
        #endif
        try await expectSameRows(server, table, live: 20, deleted: 4)
    }

    @Test(arguments: [(APIVersion.v2, 1), (.v2, 8), (.v3, 8)])
    func aPushMeetsItsOwnWritesWhenTheirAnswersAreDropped(version: APIVersion, inFlight: Int) async throws {
        let server = try TableProtocolServer(version: version, responseDelay: .milliseconds(3))
        defer { server.stop() }
        server.dropWriteAnswers(every: 3)
        let remote = HTTPRemote(baseURL: server.baseURL, apiVersion: version, configuration: Self.configuration)
        let context = SyncContext(dataSource: InMemoryDataSource(), remote: remote)
        let table = context.table("T")
        for index in 0..<16 { try await table.insert(["id": .string("r\(index)"), "text": .string("first \(index)")]) }
        try await pushUntilDone(context, inFlight: inFlight)
        for index in 0..<8 { try await table.update(["id": .string("r\(index)"), "text": .string("second \(index)")]) }
        for index in 12..<16 { try await table.delete(["id": .string("r\(index)")]) }
        try await pushUntilDone(context, inFlight: inFlight)

        #expect(server.droppedAnswers >= 8)
        #expect(server.truncatedRequests.isEmpty)
        #expect(inFlight == 1 ? server.maximumRequestsAtOnce == 1 : server.maximumRequestsAtOnce > 1)
        try await expectSameRows(server, table, live: 12, deleted: 4)
    }

    /// Pushes until nothing is pending (a push that meets a lost answer may end with a network error, and the next
    /// one meets its own row); fails after five pushes.
    private func pushUntilDone(_ context: SyncContext, inFlight: Int) async throws {
        for _ in 0..<5 {
            _ = try? await context.push(settings: PushSettings(maximumConcurrentRequests: inFlight))
            if try await context.pendingOperations().isEmpty { return }
        }
        Issue.record("operations still pending after five pushes: \(try await context.pendingOperations().count)")
    }

    /// The server holds exactly the local rows (same ids, same texts), `live` of them, and `deleted` soft-deleted ones.
    private func expectSameRows(_ server: TableProtocolServer, _ table: SyncTable, live: Int, deleted: Int) async throws {
        let local = try await table.read(Query(table: "T")).items
        let localTexts = Dictionary(uniqueKeysWithValues: local.compactMap { row in
            row["id"]?.stringValue.map { ($0, row["text"]) }
        })
        let rows = server.rows("T")
        let onServer = rows.filter { $0.value["deleted"] != true }
        #expect(onServer.mapValues { $0["text"] } == localTexts)
        #expect(localTexts.count == live)
        #expect(rows.count - onServer.count == deleted)
    }

    /// An insert meets another writer's row and its 409 is lost; then the user deletes the item. The delete has no
    /// version the server gave, so it reads the row first: the other writer's row stays, and the push reports the
    /// conflict with it; no `DELETE` without `If-Match` is sent.
    @Test(arguments: [APIVersion.v2, .v3])
    func aDeleteAfterAnInsertWhose409WasLostLeavesTheOtherWritersRow(_ version: APIVersion) async throws {
        let server = try TableProtocolServer(version: version)
        defer { server.stop() }
        server.seed([["id": "x", "text": "theirs"]], table: "T")
        var configuration = Self.configuration
        configuration.retryPolicy = .none
        let remote = HTTPRemote(baseURL: server.baseURL, apiVersion: version, configuration: configuration)
        let context = SyncContext(dataSource: InMemoryDataSource(), remote: remote)
        try await context.table("T").insert(["id": "x", "text": "A"])
        server.dropWriteAnswers(every: 1)
        await #expect(throws: PushError.self) { _ = try await context.push() }
        #expect(server.droppedAnswers == 1)
        server.dropWriteAnswers(every: nil)
        try await context.table("T").delete(["id": "x", "text": "A"])

        let error = await #expect(throws: PushError.self) { _ = try await context.push() }
        #expect(error?.errors.first?.serverItem?["text"] == "theirs")
        #expect(server.rows("T")["x"]?["text"] == "theirs")
        #expect(server.rows("T")["x"]?["deleted"] != true)
        #expect(!server.requests.contains { $0.hasPrefix("DELETE") })
        #expect(try await context.pendingOperations().map(\.kind) == [.delete])
    }
}
