import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// An older app version's model, over HTTP in both dialects: a typed update keeps the fields the model does not know,
/// locally and on the server (v2 `PATCH` and v3 `PUT` alike), and a declared field set to `nil` is cleared on the server
/// too, so the next pull does not bring it back.
@Suite(.serialized)
struct HTTPModelFieldsTests {
    /// Version 1 of an app's model: no `priority`, and `note` is optional.
    struct TodoV1: Codable, Sendable {
        var id: String
        var text: String
        var note: String?
        var version: String?
    }

    private func device(_ server: TableProtocolServer, _ version: APIVersion) -> SyncContext {
        SyncContext(dataSource: InMemoryDataSource(), remote: HTTPRemote(baseURL: server.baseURL, apiVersion: version))
    }

    @Test(arguments: [APIVersion.v2, .v3])
    func fieldsTheModelDoesNotKnowSurviveATypedUpdate(_ version: APIVersion) async throws {
        let server = try TableProtocolServer(version: version)
        defer { server.stop() }
        server.seed([["id": "x", "text": "buy milk", "priority": 5, "labels": ["home"]]], table: "T")
        let device = device(server, version)
        let todos = device.table(TodoV1.self, name: "T")
        try await todos.pull(queryId: "all")
        var item = try #require(try await todos.read(id: "x"))
        item.text = "buy oat milk"
        try await todos.update(item)
        #expect(try await device.table("T").read(id: "x")?["priority"] == 5, "kept locally")
        _ = try await device.push()
        let row = try #require(server.rows("T")["x"])
        #expect(row["text"] == "buy oat milk" && row["priority"] == 5 && row["labels"] == ["home"])
    }

    @Test(arguments: [APIVersion.v2, .v3])
    func aDeclaredFieldSetToNilIsClearedOnTheServerToo(_ version: APIVersion) async throws {
        let server = try TableProtocolServer(version: version)
        defer { server.stop() }
        server.seed([["id": "x", "text": "buy milk", "note": "2 litres", "priority": 5]], table: "T")
        let device = device(server, version)
        let todos = device.table(TodoV1.self, name: "T")
        try await todos.pull(queryId: "all")
        var item = try #require(try await todos.read(id: "x"))
        #expect(item.note == "2 litres")
        item.note = nil
        try await todos.update(item)
        _ = try await device.push()
        let row = try #require(server.rows("T")["x"])
        #expect(row["note"] == nil || row["note"] == .null, "cleared on the server: \(row)")
        #expect(row["priority"] == 5)
        try await todos.pull(queryId: "all")
        #expect(try await todos.read(id: "x")?.note == nil, "the next pull does not bring it back")
    }
}
