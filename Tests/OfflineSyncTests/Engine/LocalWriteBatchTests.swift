import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// `SyncContext.write`: several local writes across tables, with their queue entries, in one atomic step.
struct LocalWriteBatchTests {
    struct Note: Codable, Sendable, Equatable {
        var id: String?
        var text: String
    }

    /// What a failed batch must leave untouched.
    private func state(_ fixture: EngineFixture) async throws -> [String] {
        let operations = try await fixture.operations().map { "\($0.id) \($0.kind.rawValue) \($0.table)/\($0.itemId)" }
        let items = try await fixture.rows("TodoItem") + fixture.rows("TodoList")
        return operations + items.map { JSONValue.object($0).jsonString(sortedKeys: true) }
    }

    @Test(arguments: StoreKind.allCases)
    func aBatchStoresItsItemsAndQueuesTheirOperationsInCallOrder(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let listId = try await fixture.context.write { batch in
            let list = try batch.insert(["title": "Groceries"], into: "TodoList")
            try batch.insert(["id": "milk", "listId": list["id"] ?? .null], into: "TodoItem")
            return list["id"]?.stringValue
        }
        let operations = try await fixture.operations()
        #expect(operations.map(\.table) == ["TodoList", "TodoItem"])
        #expect(operations.map(\.id) == [1, 2])
        #expect(try await fixture.todo.read(id: "milk")?["listId"] == listId.map(JSONValue.string))
        try await fixture.context.push()
        #expect(await fixture.remote.requests == ["POST TodoList/\(listId ?? "")", "POST TodoItem/milk"])
    }

    @Test(arguments: StoreKind.allCases)
    func theCollapseRulesApplyInCallOrderInsideABatch(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.context.write { batch in
            try batch.insert(["id": "a", "text": "one"], into: "TodoItem")
            try batch.update(["id": "a", "text": "two"], in: "TodoItem")
            try batch.insert(["id": "b"], into: "TodoItem")
            try batch.delete(["id": "b"], from: "TodoItem")
        }
        #expect(try await fixture.operations().map { "\($0.kind.rawValue) \($0.itemId)" } == ["insert a"])
        #expect(try await fixture.todo.read(id: "a")?["text"] == "two")
        #expect(try await fixture.todo.read(id: "b") == nil)
        // The next single write gets the next id: the batch's ids were handed out, the removed one too.
        try await fixture.todo.insert(["id": "c"])
        #expect(try await fixture.operations().map(\.id) == [1, 3])
    }

    @Test(arguments: StoreKind.allCases)
    func anErrorFoundWhenTheBatchIsAppliedLeavesEverythingAsBefore(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "exists"]], table: "TodoItem")
        try await fixture.todo.pull()
        try await fixture.todo.insert(["id": "queued"])
        let before = try await state(fixture)
        await #expect(throws: SyncError.duplicateInsert(table: "TodoItem", id: "exists")) {
            try await fixture.context.write { batch in
                try batch.insert(["id": "new"], into: "TodoList")
                try batch.update(["id": "queued", "text": "changed"], in: "TodoItem")
                try batch.insert(["id": "exists"], into: "TodoItem")
            }
        }
        #expect(try await state(fixture) == before)
        try await fixture.todo.insert(["id": "after"])
        #expect(try await fixture.operations().map(\.id) == [1, 2])
    }

    @Test func anErrorThrownByTheBodyOrABatchMethodWritesNothing() async throws {
        struct Abandoned: Error {}
        let fixture = try await EngineFixture(.inMemory)
        await #expect(throws: Abandoned.self) {
            try await fixture.context.write { batch in
                try batch.insert(["id": "a"], into: "TodoItem")
                throw Abandoned()
            }
        }
        await #expect(throws: SyncError.self) {
            try await fixture.context.write { batch in
                try batch.insert(["id": "a"], into: "TodoItem")
                try batch.insert(["id": "b"], into: "__operations")
            }
        }
        await #expect(throws: SyncError.self) {
            try await fixture.context.write { batch in try batch.update(["text": "no id"], in: "TodoItem") }
        }
        #expect(try await state(fixture).isEmpty)
    }

    @Test func aStoreFailureLeavesNothingAndTheNextBatchWorks() async throws {
        let store = FailingDataSource()
        let context = SyncContext(dataSource: store, remote: InMemoryRemote())
        await store.setFailing(true)
        await #expect(throws: FailingDataSource.InjectedFailure.self) {
            try await context.write { batch in
                try batch.insert(["id": "a"], into: "TodoItem")
                try batch.insert(["id": "b"], into: "TodoItem")
            }
        }
        #expect(try await context.pendingOperations().isEmpty)
        await store.setFailing(false)
        try await context.write { batch in try batch.insert(["id": "a"], into: "TodoItem") }
        #expect(try await context.pendingOperations().map(\.id) == [1])
    }

    @Test(arguments: StoreKind.allCases)
    func modelsAreWrittenWithTheSystemPropertiesOfTheLocalItem(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "n1", "text": "server"]], table: "Note")
        try await fixture.context.table("Note").pull()
        let version = try await fixture.context.table("Note").read(id: "n1")?["version"]
        await fixture.remote.clearRequests()
        let inserted = try await fixture.context.write { batch in
            try batch.update(Note(id: "n1", text: "edited"), in: "Note")
            return try batch.insert(Note(id: nil, text: "new"), into: "Note")
        }
        #expect(inserted.id?.isEmpty == false)
        let stored = try await fixture.context.table("Note").read(id: "n1")
        #expect(stored?["text"] == "edited" && stored?["version"] == version && version != nil)
        try await fixture.context.push()
        #expect(await fixture.remote.requestLog.first?.ifMatch == version?.stringValue)
    }
}
