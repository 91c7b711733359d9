import Foundation
import Testing
import OfflineSync

/// A table answer is bounded by `HTTPRemoteConfiguration.maximumResponseBytes`: one that goes past it is cut off as
/// it arrives, with an error that says so, however long the server would go on.
@Suite(.serialized)
struct HTTPResponseSizeTests {
    private func remote(_ server: LoopbackHTTPServer, _ version: APIVersion = .v2, cap: Int) -> HTTPRemote {
        var configuration = HTTPRemoteConfiguration(timeout: .seconds(60), retryPolicy: .none)
        configuration.maximumResponseBytes = cap
        return HTTPRemote(baseURL: server.baseURL, apiVersion: version, configuration: configuration)
    }

    private static func isCapError(_ error: any Error, cap: Int) -> Bool {
        guard case RemoteError.invalidResponse(let message) = error else { return false }
        return message.contains("more than \(cap) bytes") && message.contains("maximumResponseBytes")
    }

    @Test(arguments: [APIVersion.v2, .v3])
    func aPageStreamingPastTheCapFailsWithoutWaitingForItsEnd(_ version: APIVersion) async throws {
        // 16 MiB of a page that never ends, against a cap of 1 MiB and a timeout of a minute.
        let server = try LoopbackHTTPServer { _ in
            ServerResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array("[".utf8),
                           streamedChunks: 256, streamedChunk: [UInt8](repeating: 0x20, count: 64 * 1024))
        }
        defer { server.stop() }
        let remote = remote(server, version, cap: 1 << 20)
        await #expect {
            _ = try await remote.read(Query(table: "TodoItem"))
        } throws: { Self.isCapError($0, cap: 1 << 20) }
    }

    @Test func theCapCountsTheBodyOfEveryTableAnswer() async throws {
        let body = Array(#"[{"id":"a","version":"v1"}]"#.utf8)
        let row = Array(#"{"id":"a","version":"v1"}"#.utf8)
        let server = try LoopbackHTTPServer { request in
            ServerResponse(status: request.method == "GET" ? 200 : 201, headers: ["Content-Type": "application/json"],
                           body: request.method == "GET" ? body : row)
        }
        defer { server.stop() }
        #expect(try await remote(server, cap: body.count).read(Query(table: "TodoItem")).items.count == 1)
        await #expect {
            _ = try await remote(server, cap: body.count - 1).read(Query(table: "TodoItem"))
        } throws: { Self.isCapError($0, cap: body.count - 1) }
        #expect(try await remote(server, cap: row.count).insert(["id": "a"], table: "TodoItem")["id"] == "a")
        await #expect {
            _ = try await remote(server, cap: row.count - 1).insert(["id": "a"], table: "TodoItem")
        } throws: { Self.isCapError($0, cap: row.count - 1) }
        #expect(HTTPRemoteConfiguration().maximumResponseBytes == 64 << 20)
    }
}
