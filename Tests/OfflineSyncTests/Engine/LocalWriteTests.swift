import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Local writes and reads, with no back end reachable.
struct LocalWriteTests {
    @Test(arguments: StoreKind.allCases)
    func insertWritesTheItemAndOneOperation(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.setOffline(true)
        try await fixture.todo.insert(["id": "a", "text": "milk"])
        #expect(try await fixture.todo.read(id: "a") == ["id": "a", "text": "milk"])
        let operations = try await fixture.operations()
        #expect(operations.map(\.kind) == [.insert])
        #expect(operations.first?.itemId == "a")
        #expect(operations.first?.item == ["id": "a", "text": "milk"])
        #expect(await fixture.remote.requests.isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func insertWithoutIdGeneratesAnUpperCaseUUID(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let stored = try await fixture.todo.insert(["text": "milk"])
        let id = try #require(stored["id"]?.stringValue)
        #expect(id.count == 36 && id == id.uppercased())
        #expect(try await fixture.todo.read(id: id) == stored)
    }

    @Test(arguments: StoreKind.allCases)
    func insertWithNullIdGeneratesAnIdEvenWhenAnotherItemExists(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": nil, "text": "one"])
        let second = try await fixture.todo.insert(["id": nil, "text": "two"])
        #expect(second["id"]?.stringValue != nil)
        #expect(try await fixture.rows("TodoItem").count == 2)
    }

    static let invalidIds: [JSONValue] = [1, 1.5, true, "", " ", ".", "..", "a/b", "a?b", "a+b", "a`b", "a\"b", "a\\b", "a\nb",
                                          .string(String(repeating: "x", count: 256)), ["id"]]

    @Test(arguments: invalidIds)
    func insertWithAnInvalidIdThrowsAndWritesNothing(_ id: JSONValue) async throws {
        let fixture = try await EngineFixture(.inMemory)
        await #expect(throws: SyncError.self) { try await fixture.todo.insert(["id": id, "text": "x"]) }
        #expect(try await fixture.operations().isEmpty)
        #expect(try await fixture.rows("TodoItem").isEmpty)
    }

    static let validIds = ["{6F9619FF-8B86-D011-B42D-00C04FC964FF}", "someone@someplace.com", "id with spaces", "...", "'quotes'",
                           " .", "% # &", "日本語", String(repeating: "x", count: 255)]

    @Test(arguments: validIds)
    func insertAcceptsValidIds(_ id: String) async throws {
        let fixture = try await EngineFixture(.inMemory)
        try await fixture.todo.insert(["id": .string(id)])
        #expect(try await fixture.todo.read(id: id) != nil)
    }

    @Test(arguments: StoreKind.allCases)
    func insertOfAnExistingIdThrows(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a", "text": "one"])
        try await fixture.context.push()
        await #expect(throws: SyncError.duplicateInsert(table: "TodoItem", id: "A")) {
            try await fixture.todo.insert(["id": "A", "text": "two"])
        }
        #expect(try await fixture.todo.read(id: "a")?["text"] == "one")
    }

    @Test(arguments: StoreKind.allCases)
    func unknownColumnsAndAllNumberKindsRoundTrip(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let item: JSONObject = ["id": "n", "int": .int(Int64.max), "neg": -7, "double": 0.1, "flag": false, "nothing": nil,
                                "date": "2026-01-02T03:04:05.678Z", "nested": ["a": [1, 2.5, "x"]]]
        try await fixture.todo.insert(item)
        #expect(try await fixture.todo.read(id: "n") == item)
        try await fixture.context.push()
        let server = try #require(await fixture.remote.item(id: "n", table: "TodoItem"))
        #expect(SystemProperties.sameContent(server, item))
    }

    @Test(arguments: StoreKind.allCases)
    func reservedTableThrowsOnEveryCall(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let table = fixture.context.table("__operations")
        let expected = SyncError.reservedTable("__operations")
        await #expect(throws: expected) { try await table.insert(["id": "a"]) }
        await #expect(throws: expected) { try await table.update(["id": "a"]) }
        await #expect(throws: expected) { try await table.delete(["id": "a"]) }
        await #expect(throws: expected) { _ = try await table.read(id: "a") }
        await #expect(throws: expected) { _ = try await table.read(table.query()) }
        await #expect(throws: expected) { try await table.pull() }
        await #expect(throws: expected) { try await table.purge() }
        await #expect(throws: expected) { try await table.purge(force: true) }
    }

    @Test func invalidTableNameThrows() async throws {
        let fixture = try await EngineFixture(.inMemory)
        await #expect(throws: SyncError.invalidTableName("bad name")) { try await fixture.context.table("bad name").insert([:]) }
    }

    @Test(arguments: StoreKind.allCases)
    func updateAndDeleteNeedAStringId(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await #expect(throws: SyncError.missingID(table: "TodoItem")) { try await fixture.todo.update(["text": "x"]) }
        await #expect(throws: SyncError.missingID(table: "TodoItem")) { try await fixture.todo.delete(["text": "x"]) }
        await #expect(throws: SyncError.self) { try await fixture.todo.update(["id": 5]) }
    }

    @Test(arguments: StoreKind.allCases)
    func updateOfAnUnknownItemCreatesItAndPushesAPatch(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "x", "text": "server"]], table: "TodoItem")
        try await fixture.todo.update(["id": "x", "text": "local"])
        #expect(try await fixture.todo.read(id: "x")?["text"] == "local")
        try await fixture.context.push()
        #expect(await fixture.remote.requests == ["PATCH TodoItem/x"])
    }

    @Test(arguments: StoreKind.allCases)
    func readByUnknownIdIsNilAndQueriesFilterLocally(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        #expect(try await fixture.todo.read(id: "none") == nil)
        for (id, text) in [("1", "hello"), ("2", "hi"), ("3", "goodbye")] { try await fixture.todo.insert(["id": .string(id), "text": .string(text)]) }
        let all = try await fixture.todo.read(fixture.todo.query())
        #expect(all.items.count == 3 && all.totalCount == nil)
        var query = fixture.todo.query()
        query.filter = Field("text").hasPrefix("h")
        let result = try await fixture.todo.read(query)
        #expect(result.items.count == 2 && result.totalCount == nil)
    }

    @Test func readOfAQueryForAnotherTableThrows() async throws {
        let fixture = try await EngineFixture(.inMemory)
        await #expect(throws: SyncError.queryTableMismatch(table: "TodoItem", queryTable: "Other")) {
            _ = try await fixture.todo.read(Query(table: "Other"))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func operationLookupIgnoresIdCase(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "itemid", "text": "a"])
        try await fixture.todo.update(["id": "ITEMID", "text": "b"])
        let operations = try await fixture.operations()
        #expect(operations.count == 1 && operations.first?.kind == .insert)
        #expect(try await fixture.rows("TodoItem") == [["id": "ITEMID", "text": "b"]])
    }

    @Test func aFailingApplyLeavesNeitherItemNorOperation() async throws {
        let store = FailingDataSource()
        let context = SyncContext(dataSource: store, remote: InMemoryRemote())
        await store.setFailing(true)
        await #expect(throws: FailingDataSource.InjectedFailure.self) { try await context.table("TodoItem").insert(["id": "a"]) }
        await store.setFailing(false)
        #expect(try await context.table("TodoItem").read(id: "a") == nil)
        #expect(try await context.pendingOperations().isEmpty)
        try await context.table("TodoItem").insert(["id": "a"])
        #expect(try await context.pendingOperations().map(\.id) == [1])
    }

    @Test(arguments: StoreKind.allCases)
    func operationIdsAreNeverReusedAcrossRestartsAndDrainedQueues(_ kind: StoreKind) async throws {
        var fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a"])
        try await fixture.todo.insert(["id": "b"])
        #expect(try await fixture.operations().map(\.id) == [1, 2])
        try await fixture.context.push()
        try await fixture.restart()
        try await fixture.todo.insert(["id": "c"])
        #expect(try await fixture.operations().map(\.id) == [3])
    }

    @Test func nonFiniteNumbersAreRejectedBeforeAnythingIsWritten() async throws {
        let fixture = try await EngineFixture(.inMemory)
        await #expect(throws: SyncError.self) { try await fixture.todo.insert(["id": "a", "n": .double(.nan)]) }
        #expect(try await fixture.operations().isEmpty)
    }
}

extension LocalWriteTests {
    @Test(arguments: StoreKind.allCases)
    func pendingOperationCountCountsPerTableAndInTotal(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a"])
        try await fixture.todo.insert(["id": "b"])
        try await fixture.context.table("Other").delete(["id": "c"])
        #expect(try await fixture.context.pendingOperationCount() == 3)
        #expect(try await fixture.context.pendingOperationCount(table: "TodoItem") == 2)
        #expect(try await fixture.context.pendingOperationCount(table: "Nothing") == 0)
    }
}
