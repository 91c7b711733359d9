import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncHTTP
import OfflineSync

/// `HTTPRemote` sends a write again after losing its answer; when the retry is refused because the first attempt
/// landed (a 409 for an insert, a 412 for an update, with the server's row holding what was sent), the call returns
/// that row instead of a conflict with the caller itself. A refusal with anyone else's row stays a conflict.
@Suite(.serialized)
struct HTTPLandedWriteTests {
    private func remote(_ server: TableProtocolServer, _ version: APIVersion) -> HTTPRemote {
        var configuration = HTTPRemoteConfiguration(timeout: .seconds(60))
        configuration.retryPolicy = HTTPRetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(10))
        return HTTPRemote(baseURL: server.baseURL, apiVersion: version, configuration: configuration)
    }

    /// The `text` of the server's row a `RemoteError.conflict` carries; nil for any other error.
    private static func conflictText(_ error: any Error) -> String? {
        guard case RemoteError.conflict(let row) = error else { return nil }
        return row?["text"]?.stringValue
    }

    @Test(arguments: [APIVersion.v2, .v3])
    func anInsertWhoseAnswerWasLostReturnsTheRowItCreated(_ version: APIVersion) async throws {
        let server = try TableProtocolServer(version: version)
        defer { server.stop() }
        let remote = remote(server, version)
        server.dropWriteAnswers(every: 2)
        _ = try await remote.insert(["id": "first", "text": "answered"], table: "T")

        let inserted = try await remote.insert(["id": "a", "text": "mine", "count": 2], table: "T")

        #expect(server.droppedAnswers == 1)
        #expect(server.requests.filter { $0 == "POST /tables/T" }.count == 3)
        #expect(inserted["text"] == "mine" && inserted["count"] == 2)
        #expect(inserted["version"] != nil && inserted["version"] == server.rows("T")["a"]?["version"])
        #expect(server.history("T", id: "a").count == 1)
    }

    @Test(arguments: [APIVersion.v2, .v3])
    func anUpdateWhoseAnswerWasLostReturnsTheRowItWrote(_ version: APIVersion) async throws {
        let server = try TableProtocolServer(version: version)
        defer { server.stop() }
        let remote = remote(server, version)
        var item = try await remote.insert(["id": "a", "text": "before"], table: "T")
        server.dropWriteAnswers(every: 2)
        _ = try await remote.insert(["id": "first", "text": "answered"], table: "T")
        item["text"] = "after"

        // The first attempt's answer is dropped; the retry is refused with 412, since that attempt moved the version.
        let updated = try await remote.update(item, table: "T")

        #expect(server.droppedAnswers == 1)
        #expect(updated["text"] == "after")
        #expect(updated["version"] != item["version"])
        #expect(updated["version"] == server.rows("T")["a"]?["version"])
        #expect(server.history("T", id: "a").map { $0["text"] } == ["before", "after"])
    }

    @Test(arguments: [APIVersion.v2, .v3])
    func aRetryRefusedWithAnotherWritersRowIsStillAConflict(_ version: APIVersion) async throws {
        let server = try TableProtocolServer(version: version)
        defer { server.stop() }
        server.seed([["id": "a", "text": "theirs"]], table: "T")
        let remote = remote(server, version)
        server.dropWriteAnswers(every: 2)
        _ = try await remote.insert(["id": "first", "text": "answered"], table: "T")

        await #expect {
            _ = try await remote.insert(["id": "a", "text": "mine"], table: "T")
        } throws: { Self.conflictText($0) == "theirs" }
        #expect(server.droppedAnswers == 1)
    }

    @Test(arguments: [APIVersion.v2, .v3])
    func aFirstAttemptRefusedWithTheSameContentIsAConflict(_ version: APIVersion) async throws {
        let server = try TableProtocolServer(version: version)
        defer { server.stop() }
        server.seed([["id": "a", "text": "same"]], table: "T")
        let remote = remote(server, version)

        await #expect {
            _ = try await remote.insert(["id": "a", "text": "same"], table: "T")
        } throws: { Self.conflictText($0) == "same" }
        #expect(server.requests.filter { $0.hasPrefix("POST") }.count == 1)
    }
}
