import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// `HTTPRemote(authentication:)` against the loopback server: tokens asked before requests, one refresh on a 401,
/// shared by concurrent requests, and never in a message.
@Suite(.serialized)
struct AuthenticationProviderTests {
    /// Gives `current` until asked to refresh, then `refreshed`; logs each call.
    actor Tokens: AuthenticationProvider {
        var current: String
        let refreshed: String
        var failure: (any Error)?
        private(set) var calls: [Bool] = []
        init(current: String, refreshed: String) {
            self.current = current
            self.refreshed = refreshed
        }
        func failing(_ error: any Error) { failure = error }
        func token(refresh: Bool) async throws -> String {
            calls.append(refresh)
            if let failure { throw failure }
            if refresh { current = refreshed }
            return current
        }
    }

    struct SignedOut: Error {}

    private func remote(_ server: TableProtocolServer, _ tokens: Tokens, _ version: APIVersion = .v2) -> HTTPRemote {
        HTTPRemote(baseURL: server.baseURL, apiVersion: version, authentication: tokens,
                   configuration: HTTPRemoteConfiguration(retryPolicy: .none))
    }

    @Test(arguments: [APIVersion.v2, .v3])
    func anExpiredTokenIsRefreshedOnceAndTheRequestSentAgain(_ version: APIVersion) async throws {
        let server = try TableProtocolServer(version: version, token: "fresh")
        defer { server.stop() }
        let tokens = Tokens(current: "expired", refreshed: "fresh")
        let inserted = try await remote(server, tokens, version).insert(["id": "a"], table: "T")
        #expect(inserted["id"] == "a")
        #expect(await tokens.calls == [false, true])
        #expect(server.requests == ["POST /tables/T", "POST /tables/T"])
        // The refreshed token serves the next requests without asking again.
        _ = try await remote(server, tokens, version).read(Query(table: "T"))
    }

    @Test func aSecondUnauthorizedAnswerIsUnauthorizedAndNeverShowsTheToken() async throws {
        let server = try TableProtocolServer(token: "right")
        defer { server.stop() }
        let tokens = Tokens(current: "wrong-1", refreshed: "wrong-2")
        let error = await #expect(throws: RemoteError.self) { try await remote(server, tokens).read(Query(table: "T")) }
        guard case .unauthorized? = error else { Issue.record("expected .unauthorized, got \(String(describing: error))"); return }
        #expect(await tokens.calls == [false, true])
        #expect(server.requests.count == 2)
        let description = "\(String(describing: error)) \(remote(server, tokens)) \(String(reflecting: remote(server, tokens)))"
        #expect(!description.contains("wrong-"))
    }

    @Test func concurrentRequestsThatMeetA401ShareOneRefresh() async throws {
        let server = try TableProtocolServer(token: "old")
        defer { server.stop() }
        let tokens = Tokens(current: "old", refreshed: "new")
        let remote = remote(server, tokens)
        _ = try await remote.read(Query(table: "T"))
        server.acceptToken("new")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<16 { group.addTask { _ = try await remote.read(Query(table: "T")) } }
            try await group.waitForAll()
        }
        #expect(await tokens.calls == [false, true])
    }

    @Test func aProviderThatThrowsFailsTheRequestWithItsErrorAndSendsNothing() async throws {
        let server = try TableProtocolServer(token: "t")
        defer { server.stop() }
        let tokens = Tokens(current: "t", refreshed: "t")
        await tokens.failing(SignedOut())
        await #expect(throws: SignedOut.self) { try await remote(server, tokens).insert(["id": "a"], table: "T") }
        #expect(server.requests.isEmpty)
    }

    @Test func aProviderOverPlainHTTPToAnotherHostIsRefusedBeforeItIsAsked() async throws {
        let tokens = Tokens(current: "t", refreshed: "t")
        let remote = HTTPRemote(baseURL: try #require(URL(string: "http://example.com")), authentication: tokens)
        await #expect(throws: HTTPRemoteError.insecureTokenTransport(host: "example.com")) {
            try await remote.read(Query(table: "T"))
        }
        #expect(await tokens.calls.isEmpty)
    }
}
