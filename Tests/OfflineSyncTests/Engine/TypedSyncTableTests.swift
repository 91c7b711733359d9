import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The typed table over users' own Codable models.
struct TypedSyncTableTests {
    struct TodoItem: Codable, Sendable, Equatable {
        var id: String?
        var text: String
        var complete = false
        var dueAt: Date?
        var tags: [String] = []
        var priority: Int?
    }

    struct Versioned: Codable, Sendable, Equatable {
        var id: String
        var text: String
        var version: String?
        var updatedAt: Date?
    }

    @Test(arguments: StoreKind.allCases)
    func insertGeneratesAnIdAndReadsBackEqual(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let todos = fixture.context.table(TodoItem.self, name: "TodoItem")
        let due = try #require(Timestamp.date(from: "2026-03-04T05:06:07.089Z"))
        let saved = try await todos.insert(TodoItem(id: nil, text: "milk", dueAt: due, tags: ["a"], priority: nil))
        let id = try #require(saved.id)
        #expect(try await todos.read(id: id) == saved)
        #expect(saved.dueAt == due)
        let raw = try #require(try await fixture.todo.read(id: id))
        #expect(raw["dueAt"] == "2026-03-04T05:06:07.089Z")
        #expect(raw["priority"] == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func readWithAFilterDecodesModels(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let todos = fixture.context.table(TodoItem.self, name: "TodoItem")
        try await todos.insert(TodoItem(id: "1", text: "a", complete: true))
        try await todos.insert(TodoItem(id: "2", text: "b"))
        let open = try await todos.read(Field("complete") == false)
        #expect(open.map(\.id) == ["2"])
        let due = try #require(Timestamp.date(from: "2026-01-01T00:00:00.000Z"))
        try await todos.update(TodoItem(id: "2", text: "b", dueAt: due))
        #expect(try await todos.read(Field("dueAt") == due).map(\.id) == ["2"])
    }

    @Test(arguments: StoreKind.allCases)
    func updateKeepsSystemPropertiesTheModelDoesNotDeclare(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let todos = fixture.context.table(TodoItem.self, name: "TodoItem")
        try await todos.insert(TodoItem(id: "a", text: "milk"))
        try await fixture.context.push()
        let version = try #require(try await fixture.todo.read(id: "a")?["version"])
        try await todos.update(TodoItem(id: "a", text: "oat milk"))
        #expect(try await fixture.todo.read(id: "a")?["version"] == version)
        await fixture.remote.clearRequests()
        try await fixture.context.push()
        #expect(await fixture.remote.requestLog.first?.ifMatch == version.stringValue)
        #expect(await fixture.remote.item(id: "a", table: "TodoItem")?["text"] == "oat milk")
    }

    @Test(arguments: StoreKind.allCases)
    func systemPropertiesDecodeIntoModelsThatDeclareThem(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "a", "text": "x"]], table: "Versioned")
        let table = fixture.context.table(Versioned.self, name: "Versioned")
        try await table.pull()
        let model = try #require(try await table.read(id: "a"))
        #expect(model.version != nil && model.updatedAt != nil)
        try await table.delete(model)
        try await fixture.context.push()
        #expect(await fixture.remote.requestLog.last?.ifMatch == model.version)
    }

    @Test func aStoredItemThatDoesNotFitTheModelThrowsACodingError() async throws {
        let fixture = try await EngineFixture(.inMemory)
        try await fixture.todo.insert(["id": "bad", "text": 5])
        let todos = fixture.context.table(TodoItem.self, name: "TodoItem")
        await #expect(throws: SyncError.self) { _ = try await todos.read(id: "bad") }
    }

    @Test func aModelWithANonStringIdIsRejected() async throws {
        struct NumericID: Codable, Sendable { var id: Int }
        let fixture = try await EngineFixture(.inMemory)
        await #expect(throws: SyncError.self) { try await fixture.context.table(NumericID.self, name: "N").insert(NumericID(id: 1)) }
    }
}
