import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// `additionalHeaders` and the request hook.
struct HTTPHeadersAndHookTests {
    private static let ok = StubReply.response(status: 200, headers: [:], body: Array("{\"id\":\"a\",\"version\":\"v2\"}".utf8))

    @Test func additionalHeadersAreSentAndCannotReplaceTheProtocols() async throws {
        let stub = StubServer(replies: [Self.ok])
        let headers = ["X-Tenant": "blue", "ZUMO-API-VERSION": "9.9.9", "authorization": "Bearer stolen",
                       "If-Match": "\"forged\"", "Content-Type": "text/plain"]
        let remote = HTTPRemote(baseURL: stub.baseURL, apiVersion: .v3, authToken: "real",
                                configuration: HTTPRemoteConfiguration(additionalHeaders: headers, retryPolicy: .none),
                                session: StubServer.session)
        _ = try await remote.update(["id": "a", "version": "v1"], table: "T")
        let sent = try #require(stub.requests.first)
        #expect(sent.header("X-Tenant") == "blue")
        #expect(sent.header("ZUMO-API-VERSION") == "3.0.0")
        #expect(sent.header("Authorization") == "Bearer real")
        #expect(sent.header("If-Match") == "\"v1\"")
        #expect(sent.header("Content-Type") == "application/json")

        let deletion = StubServer(replies: [.response(status: 204, headers: [:], body: [])])
        let unconditional = HTTPRemote(baseURL: deletion.baseURL, apiVersion: .v3,
                                       configuration: HTTPRemoteConfiguration(additionalHeaders: headers, retryPolicy: .none),
                                       session: StubServer.session)
        try await unconditional.delete(id: "a", version: nil, table: "T")
        #expect(deletion.requests.first?.header("If-Match") == nil)
        #expect(deletion.requests.first?.header("Authorization") == nil)
    }

    @Test(arguments: ["Bad Name", "X-Line\n", ""])
    func anAdditionalHeaderThatCannotBeSentIsRefusedBeforeSending(_ name: String) async throws {
        let stub = StubServer(replies: [Self.ok])
        let remote = HTTPRemote(baseURL: stub.baseURL, configuration: HTTPRemoteConfiguration(additionalHeaders: [name: "v"]),
                                session: StubServer.session)
        await #expect(throws: HTTPRemoteError.self) { try await remote.read(Query(table: "T")) }
        let badValue = HTTPRemote(baseURL: stub.baseURL, configuration: HTTPRemoteConfiguration(additionalHeaders: ["X-A": "a\r\nB: c"]),
                                  session: StubServer.session)
        await #expect(throws: HTTPRemoteError.self) { try await badValue.read(Query(table: "T")) }
        #expect(stub.requests.isEmpty)
    }

    /// Events the hook saw.
    final class Events: @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: [HTTPRequestEvent] = []
        var all: [HTTPRequestEvent] { lock.withLock { recorded } }
        func record(_ event: HTTPRequestEvent) { lock.withLock { recorded.append(event) } }
    }

    @Test func theHookSeesEachRequestWithoutTheTokenAndBodiesOnlyWhenAsked() async throws {
        let stub = StubServer(replies: [.failure(.timedOut), .response(status: 201, headers: [:], body: Array("{\"id\":\"a\"}".utf8))])
        let events = Events()
        var remote = HTTPRemote(baseURL: stub.baseURL, apiVersion: .v2, authToken: "secret-token",
                                configuration: HTTPRemoteConfiguration(requestHook: HTTPRequestHook { events.record($0) }),
                                session: StubServer.session)
        remote.retrySleep = { _ in }
        _ = try await remote.insert(["id": "a", "text": "milk"], table: "T")
        let seen = events.all
        #expect(seen.map(\.method) == ["POST", "POST"])
        #expect(seen.map(\.statusCode) == [nil, 201])
        #expect(seen.map(\.attempt) == [1, 2])
        #expect(seen.first?.failure?.contains("timed out") == true)
        #expect(seen.last?.requestBytes == Array("{\"id\":\"a\",\"text\":\"milk\"}".utf8).count && seen.last?.responseBytes == 10)
        #expect(seen.allSatisfy { $0.requestBody == nil && $0.responseBody == nil })
        #expect(!seen.map(\.description).joined().contains("secret-token"))
        #expect(seen.last?.description.hasPrefix("POST https://\(stub.host)/tables/T → 201 in ") == true)

        let withBodies = StubServer(replies: [.response(status: 201, headers: [:], body: Array("{\"id\":\"b\"}".utf8))])
        let bodies = Events()
        let verbose = HTTPRemote(baseURL: withBodies.baseURL, configuration: HTTPRemoteConfiguration(
            requestHook: HTTPRequestHook(includesBodies: true) { bodies.record($0) }), session: StubServer.session)
        _ = try await verbose.insert(["id": "b"], table: "T")
        #expect(bodies.all.first?.responseBody == Array("{\"id\":\"b\"}".utf8))
        #expect(bodies.all.first?.requestBody == Array("{\"id\":\"b\"}".utf8))
    }
}
