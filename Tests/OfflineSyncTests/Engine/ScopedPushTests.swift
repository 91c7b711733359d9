import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// `push(tables:)` and what a pull pushes first (`PullSettings.pushFirst`).
struct ScopedPushTests {
    /// Queues inserts a1, b1, a2, b2 alternating between tables A and B.
    private func queueTwoTables(_ fixture: EngineFixture) async throws {
        for (table, id) in [("A", "a1"), ("B", "b1"), ("A", "a2"), ("B", "b2")] {
            try await fixture.context.table(table).insert(["id": .string(id)])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func pushingOneTableLeavesTheOtherTablesOperationsAndErrorsQueuedInOrder(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await queueTwoTables(fixture)
        await fixture.remote.failNext(1, with: .server(status: 500, message: "boom"), on: .insert)
        await #expect(throws: PushError.self) { try await fixture.context.push(tables: ["A"]) }
        #expect(try await fixture.context.operationErrors().map(\.operation.itemId) == ["a1"])

        await fixture.remote.clearRequests()
        #expect(try await fixture.context.push(tables: ["B"]).pushed == 2)
        #expect(await fixture.remote.requests == ["POST B/b1", "POST B/b2"])
        #expect(try await fixture.operations().map { "\($0.id) \($0.itemId)" } == ["1 a1"])
        #expect(try await fixture.context.operationErrors().map(\.operation.itemId) == ["a1"])
    }

    /// The queued inserts a scoped push's items refer to in other tables (a field named by convention, a declared
    /// relation) go first, transitively; nothing else of those tables goes.
    @Test(arguments: StoreKind.allCases)
    func pushingOneTablePushesTheInsertsItsItemsReferToFirst(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let context = SyncContext(dataSource: fixture.store.dataSource, remote: fixture.remote,
                                  relations: [TableRelation(table: "TodoList", field: "owner", referencedTable: "User")])
        try await context.table("User").insert(["id": "u1"])
        try await context.table("TodoList").insert(["id": "l1", "owner": "u1"])
        try await context.table("TodoList").insert(["id": "l2"])
        try await context.table("TodoItem").insert(["id": "i1", "todoListId": "l1"])
        #expect(try await context.push(tables: ["TodoItem"]).pushed == 3)
        #expect(await fixture.remote.requests == ["POST User/u1", "POST TodoList/l1", "POST TodoItem/i1"])
        #expect(try await context.pendingOperations().map(\.itemId) == ["l2"])
    }

    /// An item queued while a scoped push runs, referring to an insert of another table queued before it, is sent
    /// after that insert, which the push sends too.
    @Test(arguments: StoreKind.allCases)
    func anItemQueuedDuringAScopedPushIsSentAfterTheInsertItRefersTo(_ kind: StoreKind) async throws {
        let (fixture, suspending) = try await EngineFixture.suspended(kind)
        let context = fixture.context
        try await context.table("TodoList").insert(["id": "l1"])
        try await context.table("TodoItem").insert(["id": "a"])
        await suspending.suspendNext(.insert, at: .afterServer)
        let push = await suspending.parked { try await context.push(tables: ["TodoItem"]) }
        try await context.table("TodoItem").insert(["id": "b", "todoListId": "l1"])
        await suspending.resume()
        #expect(try await push.value.pushed == 3)
        #expect(await fixture.remote.requests == ["POST TodoItem/a", "POST TodoList/l1", "POST TodoItem/b"])
    }

    /// A scoped push's delete of a referred item sends first the other tables' operations that may still refer to it
    /// on the server: those of a table declared to refer to its table, and those whose content (a delete: its
    /// snapshot) names it.
    @Test(arguments: StoreKind.allCases)
    func pushingOneTablesDeleteOfAReferredItemPushesTheReferringOperationsFirst(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let context = SyncContext(dataSource: fixture.store.dataSource, remote: fixture.remote,
                                  relations: [TableRelation(table: "Child", field: "parent", referencedTable: "Parent")])
        await fixture.remote.seed([["id": "p"], ["id": "q"], ["id": "r"]], table: "Parent")
        await fixture.remote.seed([["id": "c", "parent": "p"], ["id": "e"]], table: "Child")
        await fixture.remote.seed([["id": "d", "parentId": "r"]], table: "Note")
        for table in ["Parent", "Child", "Note"] { try await context.table(table).pull() }
        try await context.table("Parent").delete(try #require(try await context.table("Parent").read(id: "p")))
        try await context.table("Parent").delete(try #require(try await context.table("Parent").read(id: "r")))
        var child = try #require(try await context.table("Child").read(id: "c"))
        child["parent"] = "q"
        try await context.table("Child").update(child)
        try await context.table("Note").delete(try #require(try await context.table("Note").read(id: "d")))
        await fixture.remote.clearRequests()
        #expect(try await context.push(tables: ["Parent"]).pushed == 4)
        #expect(await fixture.remote.requests == ["PATCH Child/c", "DELETE Parent/p", "DELETE Note/d", "DELETE Parent/r"])
    }

    @Test func anEmptySetPushesNothingAndAReservedNameIsRefused() async throws {
        let fixture = try await EngineFixture(.inMemory)
        try await queueTwoTables(fixture)
        #expect(try await fixture.context.push(tables: []).pushed == 0)
        await #expect(throws: SyncError.reservedTable("__operations")) {
            try await fixture.context.push(tables: ["A", "__operations"])
        }
        #expect(await fixture.remote.requests.isEmpty)
        #expect(try await fixture.operations().count == 4)
    }

    @Test(arguments: [
        (PullSettings.PushFirst.tableOperations, ["POST A/a1", "POST A/a2", "GET A"]),
        (.allOperations, ["POST A/a1", "POST B/b1", "POST A/a2", "POST B/b2", "GET A"]),
        (.nothing, ["GET A"]),
    ])
    func aPullPushesWhatItsSettingsSayFirst(_ pushFirst: PullSettings.PushFirst, _ expected: [String]) async throws {
        let fixture = try await EngineFixture(.inMemory)
        try await queueTwoTables(fixture)
        try await fixture.context.table("A").pull(settings: PullSettings(pushFirst: pushFirst))
        #expect(Array(await fixture.remote.requests.prefix(expected.count)) == expected)
    }

    @Test func aPullThatPushesNothingLeavesItemsWithPendingOperationsAlone() async throws {
        let fixture = try await EngineFixture(.inMemory)
        await fixture.remote.seed([["id": "a1", "text": "server"]], table: "A")
        try await fixture.context.table("A").update(["id": "a1", "text": "local"])
        try await fixture.context.table("A").pull(settings: PullSettings(pushFirst: .nothing))
        #expect(try await fixture.context.table("A").read(id: "a1")?["text"] == "local")
        #expect(try await fixture.operations().count == 1)
    }
}
