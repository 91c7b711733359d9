import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Redirects: `URLSession` copies every header, the token included, to whatever origin a `Location` names, so
/// `HTTPRemote` follows a redirect only within the same origin.
struct HTTPRedirectTests {
    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [String?] = []
        func add(_ value: String?) { lock.withLock { values.append(value) } }
        var all: [String?] { lock.withLock { values } }
    }

    @Test func aRedirectToAnotherOriginDoesNotCarryTheToken() async throws {
        let seen = Seen()
        let foreign = try LoopbackHTTPServer { request in
            seen.add(request.headers["x-zumo-auth"])
            return ServerResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array("[]".utf8))
        }
        defer { foreign.stop() }
        let foreignPort = foreign.port
        let server = try LoopbackHTTPServer { _ in
            ServerResponse(status: 307, headers: ["Location": "http://127.0.0.1:\(foreignPort)/tables/T"])
        }
        defer { server.stop() }
        let remote = HTTPRemote(baseURL: server.baseURL, apiVersion: .v2, authToken: "secret-token")
        _ = try? await remote.read(Query(table: "T"))
        #expect(!seen.all.contains("secret-token"), "the auth token was sent to another origin after a redirect")
    }

    @Test func aRedirectWithinTheSameOriginIsStillFollowed() async throws {
        let server = try LoopbackHTTPServer { request in
            if request.path == "/tables/T" { return ServerResponse(status: 307, headers: ["Location": "/moved/tables/T"]) }
            return ServerResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(#"[{"id":"a"}]"#.utf8))
        }
        defer { server.stop() }
        let remote = HTTPRemote(baseURL: server.baseURL, apiVersion: .v2, authToken: "secret-token")
        let page = try await remote.read(Query(table: "T"))
        #expect(page.items.first?["id"] == "a")
    }
}
