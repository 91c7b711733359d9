import Testing
@testable import OfflineSync
import OfflineSyncTesting

/// Non-incremental pull (model-system.md §6, §12.5–12.6) and pull argument checks.
struct PullTests {
    @Test(arguments: StoreKind.allCases)
    func pullStoresEveryPageUntilAnEmptyPage(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind, pageSize: 2)
        await fixture.remote.seed((1...5).map { ["id": .string("i\($0)"), "text": "server"] }, table: "TodoItem")
        try await fixture.todo.pull()
        #expect(try await fixture.rows("TodoItem").count == 5)
        let queries = await fixture.remote.requestLog.compactMap(\.query)
        #expect(queries.map { [$0.skip ?? -1, $0.top ?? -1] } == [[0, 50], [2, 50], [4, 50], [5, 50]])
        #expect(queries.allSatisfy { $0.includeDeleted })
    }

    @Test(arguments: StoreKind.allCases)
    func softDeletedRecordsAreRemovedLocally(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "a"], ["id": "b"], ["id": "c"]], table: "TodoItem")
        try await fixture.todo.pull()
        await fixture.remote.serverDelete(id: "b", table: "TodoItem")
        try await fixture.todo.pull()
        #expect(try await fixture.rows("TodoItem").map(\.["id"]) == ["a", "c"])
    }

    @Test(arguments: StoreKind.allCases)
    func pullNeverRemovesRowsTheServerDidNotReturn(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "a"], ["id": "b"]], table: "TodoItem")
        try await fixture.todo.pull()
        await fixture.remote.hardDelete(id: "a", table: "TodoItem")
        try await fixture.todo.pull()
        #expect(try await fixture.rows("TodoItem").count == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func pullPushesFirstWhenItsTableHasPendingOperations(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.context.table("TodoNoVersion").insert(["id": "a"])
        try await fixture.context.table("TodoNoVersion").pull()
        #expect(await fixture.remote.requests == ["POST TodoNoVersion/a", "GET TodoNoVersion", "GET TodoNoVersion"])
        #expect(try await fixture.operations().isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func pullDoesNotPushWhenOnlyAnotherTableHasPendingOperations(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.context.table("Other").insert(["id": "a"])
        try await fixture.todo.pull()
        #expect(await fixture.remote.requests == ["GET TodoItem"])
        #expect(try await fixture.operations().count == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func aFailingPrePushFailsThePullWithThePushError(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a"])
        await fixture.remote.failNext(1, with: .server(status: 500, message: "boom"))
        let error = await #expect(throws: PushError.self) { try await fixture.todo.pull() }
        #expect(error?.reason == .operationErrors)
        #expect(await fixture.remote.requests == ["POST TodoItem/a"])
    }

    @Test(arguments: StoreKind.allCases)
    func recordsOfItemsEditedDuringThePullAreSkipped(_ kind: StoreKind) async throws {
        let remote = InMemoryRemote()
        let suspending = SuspendingRemote(remote)
        let fixture = try await EngineFixture(kind, remote: remote, wrap: { _ in suspending })
        await remote.seed([["id": "one", "text": "server"], ["id": "two", "text": "server"]], table: "TodoItem")
        await suspending.suspendNext(.read, at: .afterServer)
        let pull = Task { try await fixture.todo.pull(queryId: "q") }
        await suspending.waitUntilSuspended()
        try await fixture.todo.insert(["id": "ONE", "text": "local"])
        await suspending.resume()
        try await pull.value
        let two = try #require(await remote.item(id: "two", table: "TodoItem"))
        #expect(try await fixture.rows("TodoItem") == [["id": "ONE", "text": "local"], two])
        #expect(try await fixture.operations().count == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func topBoundsHowManyRecordsArePulled(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind, pageSize: 10)
        await fixture.remote.seed((1...30).map { ["id": .string("i\($0)")] }, table: "TodoItem")
        var query = fixture.todo.query()
        query.top = 15
        try await fixture.todo.pull(query, settings: PullSettings(pageSize: 10))
        #expect(try await fixture.rows("TodoItem").count == 15)
        #expect(await fixture.remote.requestLog.compactMap(\.query).map { [$0.top ?? -1, $0.skip ?? -1] } == [[10, 0], [5, 10]])
    }

    @Test(arguments: StoreKind.allCases)
    func pullWithAFilterAndOrderingPullsOnlyMatches(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "a", "n": 1], ["id": "b", "n": 2], ["id": "c", "n": 3]], table: "TodoItem")
        var query = fixture.todo.query()
        query.filter = Field("n") >= 2
        query.orderBy = [.descending("id")]
        try await fixture.todo.pull(query)
        #expect(try await fixture.rows("TodoItem").map(\.["id"]) == ["b", "c"])
        #expect(await fixture.remote.requestLog.first?.query?.orderBy == [.descending("id")])
    }

    static let badArguments: [(String, Query, String?, Int)] = [
        ("other table", Query(table: "Other"), nil, 50),
        ("select", Query(table: "TodoItem", select: ["text"]), nil, 50),
        ("total count", Query(table: "TodoItem", includeTotalCount: true), nil, 50),
        ("orderBy with query id", Query(table: "TodoItem", orderBy: [.ascending("text")]), "q", 50),
        ("skip with query id", Query(table: "TodoItem", skip: 1), "q", 50),
        ("top with query id", Query(table: "TodoItem", top: 1), "q", 50),
        ("empty query id", Query(table: "TodoItem"), "", 50),
        ("control character in query id", Query(table: "TodoItem"), "a\u{1}b", 50),
        ("long query id", Query(table: "TodoItem"), String(repeating: "q", count: 256), 50),
        ("page size 0", Query(table: "TodoItem"), nil, 0),
        ("page size -1", Query(table: "TodoItem"), nil, -1),
        ("negative skip", Query(table: "TodoItem", skip: -1), nil, 50),
        ("bad field name", Query(table: "TodoItem", filter: Field("a b") == 1), nil, 50),
    ]

    @Test(arguments: badArguments.indices)
    func invalidPullArgumentsAreRejectedBeforeAnyRequest(_ index: Int) async throws {
        let (_, query, queryId, pageSize) = Self.badArguments[index]
        let fixture = try await EngineFixture(.inMemory)
        try await fixture.todo.insert(["id": "pending"])
        await #expect(throws: SyncError.self) {
            try await fixture.todo.pull(query, queryId: queryId, settings: PullSettings(pageSize: pageSize))
        }
        #expect(await fixture.remote.requests.isEmpty)
    }

    @Test func pullErrorsFromTheServerAreThrown() async throws {
        let fixture = try await EngineFixture(.inMemory)
        await fixture.remote.failNext(1, with: .server(status: 500, message: "boom"))
        await #expect(throws: RemoteError.self) { try await fixture.todo.pull() }
    }
}
