import Testing
@testable import OfflineSync
import OfflineSyncTesting

/// Purge and force purge.
struct PurgeTests {
    private func pulled(_ kind: StoreKind) async throws -> EngineFixture {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "A", "text": "DELETE"], ["id": "B", "text": "KEEP"], ["id": "C", "text": "DELETE"]], table: "TodoItem")
        try await fixture.todo.pull(queryId: "q")
        return fixture
    }

    @Test(arguments: StoreKind.allCases)
    func purgeWithAQueryDeletesOnlyMatches(_ kind: StoreKind) async throws {
        let fixture = try await pulled(kind)
        var query = fixture.todo.query()
        query.filter = Field("text") == "DELETE"
        try await fixture.todo.purge(query)
        #expect(try await fixture.rows("TodoItem").map(\.["id"]) == ["B"])
        #expect(try await DeltaTokenStore.token(table: "TodoItem", queryId: "q", in: fixture.store.dataSource) != nil)
    }

    @Test(arguments: StoreKind.allCases)
    func purgeWithTopDeletesThatManyInOrder(_ kind: StoreKind) async throws {
        let fixture = try await pulled(kind)
        var query = fixture.todo.query()
        query.orderBy = [.descending("id")]
        query.top = 2
        try await fixture.todo.purge(query)
        #expect(try await fixture.rows("TodoItem").map(\.["id"]) == ["A"])
    }

    @Test(arguments: StoreKind.allCases)
    func aPendingOperationOnAnotherTableDoesNotBlockPurge(_ kind: StoreKind) async throws {
        let fixture = try await pulled(kind)
        try await fixture.context.table("Other").insert(["id": "x"])
        try await fixture.todo.purge()
        #expect(try await fixture.rows("TodoItem").isEmpty)
        #expect(try await fixture.operations().count == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func aPendingOperationOnThisTableBlocksPurge(_ kind: StoreKind) async throws {
        let fixture = try await pulled(kind)
        try await fixture.todo.insert(["id": "D"])
        await #expect(throws: SyncError.purgeBlocked(table: "TodoItem", pendingOperations: 1)) { try await fixture.todo.purge() }
        #expect(try await fixture.rows("TodoItem").count == 4)
        #expect(try await fixture.operations().count == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func forcePurgeRemovesItemsOperationsErrorsAndTokens(_ kind: StoreKind) async throws {
        let fixture = try await pulled(kind)
        try await fixture.todo.update(["id": "B", "text": "x"])
        try await fixture.todo.update(["id": "C", "text": "y"])
        try await fixture.context.table("Other").insert(["id": "keep"])
        await fixture.remote.failNext(1, with: .server(status: 500, message: "boom"))
        await fixture.remote.failNext(1, with: .network("down"))
        await #expect(throws: PushError.self) { try await fixture.context.push(settings: .oneAtATime) }
        #expect(try await fixture.context.operationErrors().count == 1)
        #expect(try await fixture.operations().count == 3)
        try await fixture.todo.purge(force: true)
        #expect(try await fixture.rows("TodoItem").isEmpty)
        #expect(try await fixture.operations().map(\.table) == ["Other"])
        #expect(try await fixture.context.operationErrors().isEmpty)
        #expect(try await DeltaTokenStore.token(table: "TodoItem", queryId: "q", in: fixture.store.dataSource) == nil)
        #expect(try await fixture.rows("Other").count == 1)
    }

    @Test func forcePurgeRejectsAQuery() async throws {
        let fixture = try await EngineFixture(.inMemory)
        await #expect(throws: SyncError.forcePurgeWithQuery(table: "TodoItem")) {
            try await fixture.todo.purge(fixture.todo.query(), force: true)
        }
    }

    @Test func purgeRejectsAQueryForAnotherTable() async throws {
        let fixture = try await EngineFixture(.inMemory)
        await #expect(throws: SyncError.queryTableMismatch(table: "TodoItem", queryTable: "Other")) {
            try await fixture.todo.purge(Query(table: "Other"))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func forcePurgeWaitsForARunningPushInsteadOfRacingIt(_ kind: StoreKind) async throws {
        let (fixture, suspending) = try await EngineFixture.suspended(kind)
        try await fixture.todo.insert(["id": "a"])
        await suspending.suspendNext(.insert, at: .afterServer)
        let push = await suspending.parked { try await fixture.context.push() }
        let purge = Task { try await fixture.todo.purge(force: true) }
        await suspending.resume()
        #expect(try await push.value.pushed == 1)
        try await purge.value
        #expect(try await fixture.rows("TodoItem").isEmpty)
        #expect(try await fixture.operations().isEmpty)
    }
}
