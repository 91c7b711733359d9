import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// The collapse rules through the context and their effect on push.
struct CollapseTests {
    @Test(arguments: StoreKind.allCases)
    func insertThenUpdateSendsOnePostWithTheLatestBody(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "test1", "text": "test name"])
        try await fixture.todo.update(["id": "test1", "text": "updated name"])
        #expect(try await fixture.operations().map(\.kind) == [.insert])
        try await fixture.context.push()
        let log = await fixture.remote.requestLog
        #expect(log.map(\.description) == ["POST TodoItem/test1"])
        #expect(log.first?.body == ["id": "test1", "text": "updated name"])
    }

    @Test(arguments: StoreKind.allCases)
    func insertThenDeleteSendsNothing(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a"])
        try await fixture.todo.delete(["id": "a"])
        #expect(try await fixture.operations().isEmpty)
        #expect(try await fixture.todo.read(id: "a") == nil)
        #expect(try await fixture.context.push().pushed == 0)
        #expect(await fixture.remote.requests.isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func updateThenUpdateSendsOnePatchWithTheLatestBody(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "a", "text": "server"]], table: "TodoItem")
        try await fixture.todo.pull()
        var item = try #require(try await fixture.todo.read(id: "a"))
        item["text"] = "one"
        try await fixture.todo.update(item)
        item["text"] = "two"
        try await fixture.todo.update(item)
        #expect(try await fixture.operations().map(\.kind) == [.update])
        await fixture.remote.clearRequests()
        try await fixture.context.push()
        let log = await fixture.remote.requestLog
        #expect(log.map(\.description) == ["PATCH TodoItem/a"])
        #expect(log.first?.body?["text"] == "two")
        #expect(log.first?.ifMatch == item["version"]?.stringValue)
    }

    @Test(arguments: StoreKind.allCases)
    func updateThenDeleteBecomesOneDeleteAtTheSamePosition(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "test1"], ["id": "other"]], table: "TodoNoVersion")
        let table = fixture.context.table("TodoNoVersion")
        try await table.update(["id": "test1", "text": "x"])
        try await table.update(["id": "other", "text": "y"])
        try await table.delete(["id": "test1"])
        let operations = try await fixture.operations()
        #expect(operations.map(\.kind) == [.delete, .update])
        #expect(operations.first?.id == 1)
        #expect(operations.first?.item == ["id": "test1"])
        try await fixture.context.push()
        #expect(await fixture.remote.requests == ["DELETE TodoNoVersion/test1", "PATCH TodoNoVersion/other"])
    }

    @Test(arguments: StoreKind.allCases)
    func deleteSendsIfMatchOnlyWithAVersion(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "a"], ["id": "b"]], table: "TodoItem")
        let version = try #require(await fixture.remote.item(id: "b", table: "TodoItem")?["version"])
        try await fixture.todo.delete(["id": "a"])
        try await fixture.todo.delete(["id": "b", "version": version])
        try await fixture.context.push()
        let log = await fixture.remote.requestLog
        #expect(log.map(\.ifMatch) == [nil, version.stringValue])
        #expect(await fixture.remote.items(table: "TodoItem").isEmpty)
    }

    @Test(arguments: [TableOperation.Kind.insert, .update, .delete])
    func anyActionAfterAPendingDeleteIsRefused(_ action: TableOperation.Kind) async throws {
        let fixture = try await EngineFixture(.inMemory)
        try await fixture.todo.delete(["id": "a"])
        let expected = SyncError.operationNotAllowed(table: "TodoItem", id: "a", pending: .delete, requested: action)
        await #expect(throws: expected) {
            switch action {
            case .insert: try await fixture.todo.insert(["id": "a"])
            case .update: try await fixture.todo.update(["id": "a"])
            case .delete: try await fixture.todo.delete(["id": "a"])
            }
        }
        #expect(try await fixture.operations().map(\.kind) == [.delete])
        #expect(try await fixture.todo.read(id: "a") == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func insertAfterAPendingUpdateIsRefused(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.update(["id": "a", "text": "u"])
        await #expect(throws: SyncError.operationNotAllowed(table: "TodoItem", id: "a", pending: .update, requested: .insert)) {
            try await fixture.todo.insert(["id": "a"])
        }
        #expect(try await fixture.todo.read(id: "a")?["text"] == "u")
    }

    @Test(arguments: StoreKind.allCases)
    func insertPushInsertPushSendsOneRequestEachTime(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a"])
        #expect(try await fixture.context.push().pushed == 1)
        #expect(await fixture.remote.requests.count == 1)
        try await fixture.todo.insert(["id": "b"])
        #expect(try await fixture.context.push().pushed == 1)
        #expect(await fixture.remote.requests.count == 2)
    }
}
