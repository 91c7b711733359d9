import Foundation
import Testing
import OfflineSync

/// A server `version` that cannot travel back as an `If-Match` value (a line break, a control character, not a
/// string) is refused where it arrives, and a write whose precondition cannot be written is never sent: libcurl
/// drops a header value holding a line break, which made the write unconditional.
@Suite(.serialized)
struct HTTPServerVersionTests {
    static let versions: [APIVersion] = [.v2, .v3]

    private func remote(_ server: TableProtocolServer, _ version: APIVersion) -> HTTPRemote {
        HTTPRemote(baseURL: server.baseURL, apiVersion: version, configuration: HTTPRemoteConfiguration(timeout: .seconds(20)))
    }

    @Test(arguments: versions)
    func aPulledRowWhoseVersionCannotBeAHeaderValueIsAnInvalidResponseNamingTheRow(_ version: APIVersion) async throws {
        let server = try TableProtocolServer(version: version)
        defer { server.stop() }
        server.seed([["id": "good", "text": "a"], ["id": "broken", "text": "b"]], table: "TodoItem")
        let remote = remote(server, version)
        for broken: JSONValue in ["v1\r\nX-Injected: 1", "v\u{7F}", "v\t1", 7] {
            server.setVersion(broken, table: "TodoItem", id: "broken")
            await #expect {
                _ = try await remote.read(Query(table: "TodoItem", orderBy: [.ascending("id")]))
            } throws: { error in
                guard case RemoteError.invalidResponse(let message) = error else { return false }
                return message.contains("\"broken\"") && message.contains("version")
            }
        }
    }

    @Test(arguments: versions)
    func aWriteWhoseVersionCannotBeAHeaderValueIsRefusedAndNeverSent(_ version: APIVersion) async throws {
        let server = try TableProtocolServer(version: version)
        defer { server.stop() }
        server.seed([["id": "a1", "text": "server"]], table: "TodoItem")
        let remote = remote(server, version)
        for broken: JSONValue in ["v1\r\nX-Injected: 1", "v1\n", "v\u{0}", 7] {
            await #expect {
                _ = try await remote.update(["id": "a1", "text": "client", "version": broken], table: "TodoItem")
            } throws: { error in
                (error as? HTTPRemoteError)?.code == .invalidVersion && (error as? HTTPRemoteError)?.subject == "a1"
            }
            if case .string(let text) = broken {
                await #expect {
                    try await remote.delete(id: "a1", version: text, table: "TodoItem")
                } throws: { ($0 as? HTTPRemoteError)?.code == .invalidVersion }
            }
        }
        #expect(server.rows("TodoItem")["a1"]?["text"] == "server")
        #expect(server.rows("TodoItem")["a1"]?["deleted"] == false)
        #expect(server.requests.allSatisfy { $0.hasPrefix("GET") }, "\(server.requests)")
    }
}
