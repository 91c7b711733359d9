import Foundation
import Testing
import OfflineSync

/// `read(nextLink:table:)` follows a link only to the table it reads: a link to another table, a row, another path
/// or a path outside the base URL's prefix on the same server is refused before the token goes anywhere.
@Suite(.serialized)
struct HTTPNextLinkScopeTests {
    @Test func aLinkToAnotherTableOrPathOnTheSameServerIsRefusedUnsent() async throws {
        let server = try TableProtocolServer(version: .v3, token: "link-token")
        defer { server.stop() }
        server.seed([["id": "s1", "text": "not a todo"]], table: "Secrets")
        server.seed([["id": "t1", "text": "a todo"]], table: "TodoItem")
        let remote = HTTPRemote(baseURL: server.baseURL, apiVersion: .v3, authToken: "link-token",
                                configuration: HTTPRemoteConfiguration(timeout: .seconds(20)))
        let root = server.baseURL.absoluteString
        for path in ["/tables/Secrets?$skip=0", "/tables/TodoItem/../Secrets?$skip=0", "/tables/TodoItem/%2E%2E/Secrets",
                     "/tables/TodoItemX?$skip=0", "/tables/TodoItem/t1", "/other/tables/TodoItem?$skip=0", "/token"] {
            let link = try #require(URL(string: root + path))
            await #expect("\(path) was followed") {
                _ = try await remote.read(nextLink: link, table: "TodoItem")
            } throws: { ($0 as? HTTPRemoteError)?.code == .foreignNextLink }
        }
        #expect(server.requests.isEmpty, "\(server.requests)")
        let own = try #require(URL(string: root + "/tables/TodoItem?$skip=0"))
        #expect(try await remote.read(nextLink: own, table: "TodoItem").items.map { $0["id"] } == ["t1"])
        let trailing = try #require(URL(string: root + "/tables/TodoItem/?$skip=0"))
        #expect(try await remote.read(nextLink: trailing, table: "TodoItem").items.count == 1)
    }

    @Test func aLinkOutsideTheBaseURLsPathPrefixIsRefused() async throws {
        let server = try TableProtocolServer(version: .v3)
        defer { server.stop() }
        let base = try #require(URL(string: server.baseURL.absoluteString + "/app"))
        let remote = HTTPRemote(baseURL: base, apiVersion: .v3, configuration: HTTPRemoteConfiguration(timeout: .seconds(20)))
        let link = try #require(URL(string: server.baseURL.absoluteString + "/tables/TodoItem?$skip=2"))
        await #expect {
            _ = try await remote.read(nextLink: link, table: "TodoItem")
        } throws: { ($0 as? HTTPRemoteError)?.code == .foreignNextLink }
        #expect(server.requests.isEmpty)
    }
}
