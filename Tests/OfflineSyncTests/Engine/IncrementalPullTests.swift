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

/// Incremental pull with delta tokens.
struct IncrementalPullTests {
    private func date(_ text: String) throws -> Date { try #require(Timestamp.date(from: text)) }

    /// The key each GET in the remote's log asks after.
    private func keys(_ remote: InMemoryRemote) async -> [PullKey?] {
        await remote.requestLog.compactMap(\.query).map { $0.filter?.pullKey }
    }

    private func key(_ instant: String, _ id: String?) -> PullKey {
        PullKey(updatedAt: Timestamp.milliseconds(from: instant) ?? -1, id: id)
    }

    @Test(arguments: StoreKind.allCases)
    func firstPullStartsAtTheEpochOrderedByUpdatedAtAndStoresTheToken(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "one", "updatedAt": "1999-12-03T15:44:29.000Z"],
                                   ["id": "two", "updatedAt": "1999-12-03T15:44:28.000Z"]], table: "TodoItem")
        try await fixture.todo.pull(queryId: "all")
        let first = try #require(await fixture.remote.requestLog.first?.query)
        #expect(first.filter == (Field("updatedAt") >= "1970-01-01T00:00:00.000Z"))
        #expect(first.orderBy == [.ascending("updatedAt"), .ascending("id")])
        #expect(first.skip == 0 && first.top == 50 && first.includeDeleted)
        #expect(await keys(fixture.remote) == [.start, key("1999-12-03T15:44:29.000Z", "one")])
        #expect(try await DeltaTokenStore.token(table: "TodoItem", queryId: "all", in: fixture.store.dataSource)
                == Timestamp.milliseconds(from: "1999-12-03T15:44:29.000Z"))
        #expect(try await fixture.rows("TodoItem").count == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func aPullOnARecreatedContextContinuesFromTheStoredToken(_ kind: StoreKind) async throws {
        var fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "a", "updatedAt": "2026-01-01T00:00:00.000Z"]], table: "TodoItem")
        try await fixture.todo.pull(queryId: "q")
        await fixture.remote.seed([["id": "b", "updatedAt": "2026-01-02T00:00:00.000Z"]], table: "TodoItem")
        await fixture.remote.clearRequests()
        try await fixture.restart()
        try await fixture.todo.pull(queryId: "q")
        #expect(await keys(fixture.remote).first == key("2026-01-01T00:00:00.000Z", "a"))
        #expect(try await fixture.rows("TodoItem").map(\.["id"]) == ["a", "b"])
        #expect(try await DeltaTokenStore.token(table: "TodoItem", queryId: "q", in: fixture.store.dataSource)
                == Timestamp.milliseconds(from: "2026-01-02T00:00:00.000Z"))
    }

    @Test(arguments: StoreKind.allCases)
    func threePagesOfRecordsWithOneSharedTimestampArePulledCompletely(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind, pageSize: 3)
        await fixture.remote.freezeClock(at: try date("2026-05-05T05:05:05.005Z"))
        await fixture.remote.seed((1...8).map { ["id": .string("r\($0)")] }, table: "TodoItem")
        try await fixture.todo.pull(queryId: "q", settings: PullSettings(pageSize: 3).oneAtATime())
        #expect(try await fixture.rows("TodoItem").count == 8)
        // Each page is asked for after the last record of the one before, by id inside the shared timestamp.
        let at = "2026-05-05T05:05:05.005Z"
        #expect(await keys(fixture.remote) == [.start, key(at, "r3"), key(at, "r6"), key(at, "r8")])
        #expect(await fixture.remote.requestLog.compactMap(\.query?.skip) == [0, 0, 0, 0])
        // A second pull asks after the last record stored, reads nothing again, and ends.
        await fixture.remote.clearRequests()
        try await fixture.todo.pull(queryId: "q", settings: PullSettings(pageSize: 3).oneAtATime())
        #expect(await keys(fixture.remote) == [key(at, "r8")])
    }

    @Test(arguments: StoreKind.allCases)
    func recordsChangedBetweenPullsArriveAndDeletionsAreApplied(_ kind: StoreKind) async throws {
        var clock = Int64(1_700_000_000_000)
        let fixture = try await EngineFixture(kind)
        await fixture.remote.setClock { Date(timeIntervalSince1970: 1_700_000_000) }
        await fixture.remote.seed([["id": "a", "text": "1"], ["id": "b", "text": "1"]], table: "TodoItem")
        try await fixture.todo.pull(queryId: "q")
        clock += 1000
        let later = clock
        await fixture.remote.setClock { Date(timeIntervalSince1970: Double(later) / 1000) }
        await fixture.remote.serverUpdate(id: "a", table: "TodoItem", fields: ["text": "2"])
        await fixture.remote.serverDelete(id: "b", table: "TodoItem")
        try await fixture.todo.pull(queryId: "q")
        #expect(try await fixture.rows("TodoItem").map { $0["text"] } == ["2"])
    }

    @Test(arguments: StoreKind.allCases)
    func tokensAreScopedByTableAndQueryId(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "a", "updatedAt": "2026-01-01T00:00:00.000Z"]], table: "TodoItem")
        try await fixture.todo.pull(queryId: "first/query?")
        await fixture.remote.clearRequests()
        try await fixture.todo.pull(queryId: "second")
        #expect(await keys(fixture.remote).first == .start)
        let data = fixture.store.dataSource
        #expect(try await DeltaTokenStore.token(table: "TodoItem", queryId: "first/query?", in: data) != nil)
        #expect(try await DeltaTokenStore.token(table: "Other", queryId: "first/query?", in: data) == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func theUserFilterIsCombinedWithTheTokenFilter(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "a", "text": "MATCH"], ["id": "b", "text": "other"]], table: "TodoItem")
        var query = fixture.todo.query()
        query.filter = Field("text") == "MATCH"
        try await fixture.todo.pull(query, queryId: "matches")
        #expect(try await fixture.rows("TodoItem").map(\.["id"]) == ["a"])
        #expect(await fixture.remote.requestLog.first?.query?.filter == (Field("text") == "MATCH" && Field("updatedAt") >= "1970-01-01T00:00:00.000Z"))
        #expect(await fixture.remote.requests.count == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func cancellingAPullBetweenPagesLeavesTheStoreConsistent(_ kind: StoreKind) async throws {
        let (fixture, suspending) = try await EngineFixture.suspended(kind, remote: InMemoryRemote(pageSize: 2))
        for (index, day) in ["01", "02", "03", "04"].enumerated() {
            await fixture.remote.seed([["id": .string("r\(index)"), "updatedAt": .string("2026-01-\(day)T00:00:00.000Z")]], table: "TodoItem")
        }
        // Let the first page through, park the second request after the server answered, then cancel.
        await suspending.suspendNext(.read, at: .afterServer, skipping: 1)
        let pull = await suspending.cancelWhileParked { try await fixture.todo.pull(queryId: "q", settings: PullSettings(pageSize: 2)) }
        await #expect(throws: CancellationError.self) { try await pull.value }
        let rows = try await fixture.rows("TodoItem")
        let token = try await DeltaTokenStore.token(table: "TodoItem", queryId: "q", in: fixture.store.dataSource)
        // Whatever was applied came with its token: every stored record is at or before the token.
        let stamps = rows.compactMap { $0["updatedAt"]?.stringValue.flatMap(Timestamp.milliseconds(from:)) }
        #expect(rows.map(\.["id"]) == ["r0", "r1"])
        #expect(token == Timestamp.milliseconds(from: "2026-01-02T00:00:00.000Z"))
        #expect(stamps.allSatisfy { $0 <= (token ?? -1) })
        try await fixture.todo.pull(queryId: "q", settings: PullSettings(pageSize: 2))
        #expect(try await fixture.rows("TodoItem").count == 4)
    }

    @Test(arguments: StoreKind.allCases)
    func forcePurgeRemovesTheTokens(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "a"]], table: "TodoItem")
        try await fixture.todo.pull(queryId: "q")
        try await fixture.todo.purge(force: true)
        #expect(try await DeltaTokenStore.token(table: "TodoItem", queryId: "q", in: fixture.store.dataSource) == nil)
        #expect(try await fixture.rows("TodoItem").isEmpty)
    }

    @Test func tokenRowIdsAreValidItemIdsForAnyQueryId() {
        for queryId in ["q", "a/b?c", String(repeating: "é", count: 255), "x|y"] {
            #expect(ItemID.isValid(DeltaTokenStore.rowID(table: "TodoItem", queryId: queryId)))
        }
        #expect(DeltaTokenStore.rowID(table: "A", queryId: "bc") != DeltaTokenStore.rowID(table: "Ab", queryId: "c"))
    }
}
