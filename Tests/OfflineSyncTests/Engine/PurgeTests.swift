import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Purge and force purge.
struct PurgeTests {
    private func pulled(_ kind: StoreKind) async throws -> EngineFixture {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "A", "text": "DELETE"], ["id": "B", "text": "KEEP"], ["id": "C", "text": "DELETE"]], table: "TodoItem")
        try await fixture.todo.pull(queryId: "q")
        return fixture
    }

    private func token(_ fixture: EngineFixture, _ queryId: String, table: String = "TodoItem") async throws -> Int64? {
        try await DeltaTokenStore.token(table: table, queryId: queryId, in: fixture.store.dataSource)
    }

    @Test(arguments: StoreKind.allCases)
    func purgeWithAQueryDeletesOnlyMatchesAndTheNextPullBringsThemBack(_ kind: StoreKind) async throws {
        let fixture = try await pulled(kind)
        var query = fixture.todo.query()
        query.filter = Field("text") == "DELETE"
        try await fixture.todo.purge(query)
        #expect(try await fixture.rows("TodoItem").map(\.["id"]) == ["B"])
        #expect(try await token(fixture, "q") == nil)
        try await fixture.todo.pull(queryId: "q")
        #expect(try await fixture.rows("TodoItem").map(\.["id"]) == ["A", "B", "C"])
    }

    @Test(arguments: StoreKind.allCases)
    func purgeOfTheWholeTableResetsEveryIncrementalQueryOfIt(_ kind: StoreKind) async throws {
        let fixture = try await pulled(kind)
        var keep = fixture.todo.query()
        keep.filter = Field("text") == "KEEP"
        try await fixture.todo.pull(keep, queryId: "keep")
        try await fixture.todo.purge()
        #expect(try await token(fixture, "q") == nil)
        #expect(try await token(fixture, "keep") == nil)
        try await fixture.todo.pull(keep, queryId: "keep")
        #expect(try await fixture.rows("TodoItem").map(\.["id"]) == ["B"])
        try await fixture.todo.pull(queryId: "q")
        #expect(try await fixture.rows("TodoItem").map(\.["id"]) == ["A", "B", "C"])
    }

    @Test(arguments: StoreKind.allCases)
    func purgeOfOneQuerysRowsResetsAnotherQueryThatAlsoCoveredThem(_ kind: StoreKind) async throws {
        let fixture = try await pulled(kind)
        var doomed = fixture.todo.query()
        doomed.filter = Field("text") == "DELETE"
        try await fixture.todo.pull(doomed, queryId: "doomed")
        try await fixture.todo.purge(doomed)
        #expect(try await token(fixture, "doomed") == nil)
        // "q" (every row) brought A and C in too: without its reset it would never bring them back.
        try await fixture.todo.pull(queryId: "q")
        #expect(try await fixture.rows("TodoItem").map(\.["id"]) == ["A", "B", "C"])
    }

    @Test(arguments: StoreKind.allCases)
    func purgeKeepsTheTokensOfOtherTables(_ kind: StoreKind) async throws {
        let fixture = try await pulled(kind)
        await fixture.remote.seed([["id": "o"]], table: "Other")
        try await fixture.context.table("Other").pull(queryId: "q")
        let before = try await token(fixture, "q", table: "Other")
        try await fixture.todo.purge()
        #expect(before != nil)
        #expect(try await token(fixture, "q", table: "Other") == before)
        try await fixture.todo.purge(force: true)
        #expect(try await token(fixture, "q", table: "Other") == before)
        #expect(try await fixture.rows("Other").count == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func aPurgeThatDeletesNothingKeepsTheTokens(_ kind: StoreKind) async throws {
        let fixture = try await pulled(kind)
        var none = fixture.todo.query()
        none.filter = Field("text") == "NONE"
        try await fixture.todo.purge(none)
        none.top = 1
        none.orderBy = [.ascending("id")]
        try await fixture.todo.purge(none)
        #expect(try await token(fixture, "q") != nil)
        #expect(try await fixture.rows("TodoItem").count == 3)
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
