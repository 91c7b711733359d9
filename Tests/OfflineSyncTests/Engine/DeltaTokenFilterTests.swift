import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// A delta token is valid only for the filter it was stored with: a changed filter under the same query id pulls
/// again from the start, instead of silently missing the records that newly match.
struct DeltaTokenFilterTests {
    /// The `.started` report of a pull of `query` under query id "q".
    private func startOfPull(_ fixture: EngineFixture, _ query: Query) async throws -> SyncProgress? {
        let stream = await fixture.context.progressUpdates()
        try await fixture.todo.pull(query, queryId: "q")
        for await progress in stream where progress.phase == .started { return progress }
        return nil
    }

    @Test(arguments: StoreKind.allCases)
    func aChangedFilterUnderTheSameQueryIdPullsFromTheStart(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "open", "complete": false], ["id": "done", "complete": true]], table: "TodoItem")
        let open = Query(table: "TodoItem", filter: Field("complete") == false)
        #expect(try await startOfPull(fixture, open)?.tokenReset == false)
        #expect(try await fixture.rows("TodoItem").map(\.["id"]) == ["open"])

        // Same filter: the token is used.
        let token = try #require(try await DeltaTokenStore.key(table: "TodoItem", queryId: "q", in: fixture.store.dataSource))
        #expect(token.id == "open")
        #expect(try await startOfPull(fixture, open)?.tokenReset == false)
        #expect(await fixture.remote.requestLog.last?.query?.filter == (Field("complete") == false && token.filter))

        // Another filter: the token is not used, and the record that newly matches arrives.
        let everything = Query(table: "TodoItem")
        let start = try await startOfPull(fixture, everything)
        #expect(start?.tokenReset == true)
        #expect(try await fixture.rows("TodoItem").map(\.["id"]) == ["done", "open"])
        #expect(try await startOfPull(fixture, everything)?.tokenReset == false)
    }

    @Test func aTokenStoredWithoutAFilterDigestIsNotTrusted() async throws {
        let fixture = try await EngineFixture(.inMemory)
        await fixture.remote.seed([["id": "old", "updatedAt": "2020-01-01T00:00:00.000Z"]], table: "TodoItem")
        // A token row as an earlier version wrote it: no filterDigest.
        try await fixture.store.dataSource.apply([.upsert(table: EngineTables.config, items: [[
            "id": .string(DeltaTokenStore.rowID(table: "TodoItem", queryId: "q")), "kind": "deltaToken",
            "table": "TodoItem", "queryId": "q", "value": "2025-01-01T00:00:00.000Z",
        ]])])
        #expect(try await startOfPull(fixture, Query(table: "TodoItem"))?.tokenReset == true)
        #expect(try await fixture.todo.read(id: "old") != nil)
    }

    /// The `__config` row of the token of query id "q", as stored.
    private func tokenRow(_ fixture: EngineFixture) async throws -> JSONObject? {
        try await fixture.store.dataSource.read(table: EngineTables.config, id: DeltaTokenStore.rowID(table: "TodoItem", queryId: "q"))
    }

    @Test(arguments: StoreKind.allCases)
    func aTokenWithTheDigestAnEarlierVersionWroteIsUsedAndThenRewritten(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([
            ["id": "old", "complete": false, "updatedAt": "2020-01-01T00:00:00.000Z"],
            ["id": "new", "complete": false, "updatedAt": "2025-06-01T00:00:00.000Z"],
        ], table: "TodoItem")
        // The row as earlier versions wrote it: the digest is the hash of the OData v2 text "(complete eq false)".
        try await fixture.store.dataSource.apply([.upsert(table: EngineTables.config, items: [[
            "id": .string(DeltaTokenStore.rowID(table: "TodoItem", queryId: "q")), "kind": "deltaToken",
            "table": "TodoItem", "queryId": "q", "value": "2025-01-01T00:00:00.000Z",
            "filterDigest": "3018af19412fd118a768dd2fdf40a993",
        ]])])
        let open = Query(table: "TodoItem", filter: Field("complete") == false)
        #expect(DeltaTokenStore.legacyFilterDigest(open.filter) == "3018af19412fd118a768dd2fdf40a993")

        // The token is used: the record before it is not fetched again.
        #expect(try await startOfPull(fixture, open)?.tokenReset == false)
        #expect(try await fixture.rows("TodoItem").map(\.["id"]) == ["new"])
        // Saved again, with the digest of the canonical form.
        let row = try #require(try await tokenRow(fixture))
        #expect(row["filterDigest"]?.stringValue == "bc6286155549837b1dd3622685b97b26")
        #expect(row["value"]?.stringValue == "2025-06-01T00:00:00.000Z")
        #expect(try await startOfPull(fixture, open)?.tokenReset == false)
        #expect(try await fixture.rows("TodoItem").map(\.["id"]) == ["new"])
    }

    @Test func aTokenIsKeyedByWhatTheFilterMeansNotHowItIsGrouped() async throws {
        let fixture = try await EngineFixture(.inMemory)
        await fixture.remote.seed([["id": "a", "x": 1, "y": 2, "z": 3]], table: "TodoItem")
        let (x, y, z) = (Field("x") == 1, Field("y") == 2, Field("z") == 3)
        #expect(try await startOfPull(fixture, Query(table: "TodoItem", filter: (x && y) && z))?.tokenReset == false)
        #expect(try await startOfPull(fixture, Query(table: "TodoItem", filter: x && (y && z)))?.tokenReset == false)
        #expect(try await startOfPull(fixture, Query(table: "TodoItem", filter: (x && y) || z))?.tokenReset == true)
    }

    @Test func aLegacyDigestOfAnotherFilterResetsTheToken() async throws {
        let fixture = try await EngineFixture(.inMemory)
        await fixture.remote.seed([["id": "done", "complete": true, "updatedAt": "2020-01-01T00:00:00.000Z"]], table: "TodoItem")
        try await fixture.store.dataSource.apply([.upsert(table: EngineTables.config, items: [[
            "id": .string(DeltaTokenStore.rowID(table: "TodoItem", queryId: "q")), "kind": "deltaToken",
            "table": "TodoItem", "queryId": "q", "value": "2025-01-01T00:00:00.000Z",
            "filterDigest": .string(DeltaTokenStore.legacyFilterDigest(Field("complete") == false)),
        ]])])
        #expect(try await startOfPull(fixture, Query(table: "TodoItem", filter: Field("complete") == true))?.tokenReset == true)
        #expect(try await fixture.rows("TodoItem").map(\.["id"]) == ["done"])
    }
}
