import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Non-incremental pull and pull argument checks.
struct PullTests {
    @Test(arguments: StoreKind.allCases)
    func pullStoresEveryPageUntilAnEmptyPage(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind, pageSize: 2)
        await fixture.remote.seed((1...5).map { ["id": .string("i\($0)"), "text": "server"] }, table: "TodoItem")
        try await fixture.todo.pull(settings: PullSettings().oneAtATime())
        #expect(try await fixture.rows("TodoItem").count == 5)
        // Paged by id: each request asks for the ids after the last one stored.
        let queries = await fixture.remote.requestLog.compactMap(\.query)
        #expect(queries.map { [$0.skip ?? -1, $0.top ?? -1] } == [[0, 50], [0, 50], [0, 50], [0, 50]])
        #expect(queries.map(\.filter) == [nil, Field("id") > "i2", Field("id") > "i4", Field("id") > "i5"])
        #expect(queries.allSatisfy { $0.includeDeleted && $0.orderBy == [.ascending("id")] })
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
        let (fixture, suspending) = try await EngineFixture.suspended(kind)
        await fixture.remote.seed([["id": "one", "text": "server"], ["id": "two", "text": "server"]], table: "TodoItem")
        await suspending.suspendNext(.read, at: .afterServer)
        let pull = await suspending.parked { try await fixture.todo.pull(queryId: "q") }
        try await fixture.todo.insert(["id": "ONE", "text": "local"])
        await suspending.resume()
        try await pull.value
        let two = try #require(await fixture.remote.item(id: "two", table: "TodoItem"))
        #expect(try await fixture.rows("TodoItem") == [["id": "ONE", "text": "local"], two])
        #expect(try await fixture.operations().count == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func topBoundsHowManyRecordsArePulled(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind, pageSize: 10)
        await fixture.remote.seed((1...30).map { ["id": .string("i\($0)")] }, table: "TodoItem")
        var query = fixture.todo.query()
        query.top = 15
        try await fixture.todo.pull(query, settings: PullSettings(pageSize: 10).oneAtATime())
        #expect(try await fixture.rows("TodoItem").count == 15)
        let queries = await fixture.remote.requestLog.compactMap(\.query)
        #expect(queries.map { [$0.top ?? -1, $0.skip ?? -1] } == [[10, 0], [5, 0]])
        #expect(queries.last?.filter == (Field("id") > "i18"), "ids in string order: i1, i10, …, i18 first")
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

    @Test(arguments: StoreKind.allCases)
    func a401DuringThePrePushFailsThePullAsUnauthorizedAndKeepsEverythingQueued(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "s", "text": "server"]], table: "TodoItem")
        try await fixture.todo.insert(["id": "a", "text": "local"])
        try await fixture.todo.insert(["id": "b", "text": "local"])
        await fixture.remote.failNext(1, with: .unauthorized)
        let error = await #expect(throws: PushError.self) {
            try await fixture.todo.pull(queryId: "q", settings: PullSettings().oneAtATime())
        }
        #expect(error?.reason == .unauthorized)
        #expect(error?.errors.isEmpty == true)
        if case .unauthorized? = error?.underlying {} else { Issue.record("underlying is \(String(describing: error?.underlying))") }
        // One POST, refused; no page was requested, nothing was stored, no error row, no token.
        #expect(await fixture.remote.requests == ["POST TodoItem/a"])
        #expect(await fixture.remote.items(table: "TodoItem").map(\.["id"]) == ["s"])
        #expect(try await fixture.operations().map { "\($0.id) \($0.kind.rawValue) \($0.itemId) r\($0.revision)" }
                == ["1 insert a r0", "2 insert b r0"])
        #expect(try await fixture.context.operationErrors().isEmpty)
        #expect(try await fixture.rows("TodoItem") == [["id": "a", "text": "local"], ["id": "b", "text": "local"]])
        #expect(try await DeltaTokenStore.token(table: "TodoItem", queryId: "q", in: fixture.store.dataSource) == nil)
        // Signed in again, the same pull pushes both and pulls everything.
        try await fixture.todo.pull(queryId: "q")
        #expect(try await fixture.operations().isEmpty)
        #expect(try await fixture.rows("TodoItem") == (await fixture.remote.items(table: "TodoItem")))
    }

    @Test(arguments: StoreKind.allCases)
    func aPageRecordWithAnInvalidIdOrUnstorableContentIsSkippedAndTheRestOfThePageIsStoredWithItsToken(_ kind: StoreKind) async throws {
        // The engine never half-applies a page: it drops the records it cannot store (an id breaking the id
        // rules, or content nested too deep for a store) and writes the others together with the page's token
        // in one apply. The token is the page's greatest updatedAt, also when that record is a dropped one.
        let store = try await kind.makeStore()
        var deep = JSONValue.int(1)
        for _ in 0..<TableSet.maximumItemDepth { deep = .array([deep]) }
        let page: [JSONObject] = [
            ["id": "a", "text": "ok", "updatedAt": "2026-01-01T00:00:00.000Z"],
            ["id": "bad/id", "text": "dropped", "updatedAt": "2026-01-03T00:00:00.000Z"],
            ["id": 7, "text": "dropped", "updatedAt": "2026-01-02T00:00:00.000Z"],
            ["id": "b", "text": "ok", "updatedAt": "2026-01-02T00:00:00.000Z"],
            ["id": "deep", "text": "dropped", "nested": deep, "updatedAt": "2026-01-01T00:00:00.000Z"],
        ]
        let remote = CannedRemote(pages: [page])
        let context = SyncContext(dataSource: store.dataSource, remote: remote)
        let diagnostics = await context.diagnostics()
        try await context.table("TodoItem").pull(queryId: "q")
        let rows = try await store.dataSource.read(Query(table: "TodoItem", orderBy: [.ascending("id")])).items
        #expect(rows == [page[0], page[3]])
        // Each dropped record is reported, naming it and why.
        var reported: [SyncDiagnostic] = []
        for await diagnostic in diagnostics {
            reported.append(diagnostic)
            if reported.count == 3 { break }
        }
        #expect(reported.map(\.itemId) == ["bad/id", "7", "deep"])
        #expect(reported.allSatisfy { $0.code == .skippedPulledRecord && $0.table == "TodoItem" })
        #expect(reported[0].message.contains("bad/id") && reported[2].message.contains("deeper"), "\(reported.map(\.message))")
        // The token is the page's last record, left out or not: the pull pages after it.
        #expect(try await DeltaTokenStore.key(table: "TodoItem", queryId: "q", in: store.dataSource)
                == PullKey(updatedAt: Timestamp.milliseconds(from: "2026-01-01T00:00:00.000Z") ?? -1, id: "deep"))
        // Two requests: the page, then the empty page after the new token.
        #expect(await remote.queries.map(\.skip) == [0, 0])
    }

    @Test func aPageIsValidatedByTheStoreAloneUnlessTheStoreRefusesIt() async throws {
        // A page of storable records costs one apply, validated by the store; the engine checks record by record
        // only after the store refused a page, and then stores the rest in a second apply. (Each pull ends with one
        // more apply: its last delta token, stored durably.)
        let store = FailingDataSource()
        let good: [JSONObject] = [["id": "a", "updatedAt": "2026-01-01T00:00:00.000Z"],
                                  ["id": "b", "updatedAt": "2026-01-02T00:00:00.000Z"]]
        let mixed: [JSONObject] = [["id": "c", "updatedAt": "2026-01-03T00:00:00.000Z"],
                                   ["id": "bad/id", "updatedAt": "2026-01-04T00:00:00.000Z"]]
        let context = SyncContext(dataSource: store, remote: CannedRemote(pages: [good, [], mixed]))
        let diagnostics = await context.diagnostics()
        try await context.table("TodoItem").pull(queryId: "q")
        #expect(await store.applyCalls == 2, "the page, then its token")
        try await context.table("TodoItem").pull(queryId: "q")
        #expect(await store.applyCalls == 5, "the refused page, its storable records, then their token")
        let ids = try await store.read(Query(table: "TodoItem", orderBy: [.ascending("id")])).items.map { $0["id"] }
        #expect(ids == ["a", "b", "c"])
        for await diagnostic in diagnostics {
            #expect(diagnostic.itemId == "bad/id")
            break
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anUpdateDuringThePullOfAPrePushedInsertKeepsTheLocalEditAndItsOperation(_ kind: StoreKind) async throws {
        // Reference §12.7: the pending insert of "one" is pushed first; an update of "one" made while the first
        // page is on its way makes the pulled "one" skipped, and exactly that update stays pending.
        let (fixture, suspending) = try await EngineFixture.suspended(kind)
        await fixture.remote.seed([["id": "two", "text": "server"]], table: "TodoItem")
        try await fixture.todo.insert(["id": "one", "text": "local"])
        await suspending.suspendNext(.read, at: .afterServer)
        let pull = await suspending.parked { try await fixture.todo.pull(queryId: "q") }
        var edited = try #require(try await fixture.todo.read(id: "one"))
        #expect(edited["version"] != nil)
        edited["text"] = "edited during the pull"
        try await fixture.todo.update(edited)
        await suspending.resume()
        try await pull.value
        #expect(await fixture.remote.requests.first == "POST TodoItem/one")
        #expect(await fixture.remote.requests.dropFirst().allSatisfy { $0 == "GET TodoItem" })
        #expect(try await fixture.todo.read(id: "one") == edited)
        #expect(try await fixture.todo.read(id: "two") == (await fixture.remote.item(id: "two", table: "TodoItem")))
        #expect(try await fixture.operations().map { "\($0.id) \($0.kind.rawValue) \($0.itemId)" } == ["2 update one"])
    }
}
