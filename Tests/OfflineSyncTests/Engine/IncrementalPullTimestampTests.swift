import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Incremental pull over `updatedAt` values that are not the server's canonical `…Z` form, or missing: the delta
/// token is computed from instants, and the page loop neither loops nor skips.
struct IncrementalPullTimestampTests {
    /// A server that keeps its rows' `updatedAt` exactly as given. It honours the pull's key by instant, sorts by
    /// instant then id, and pages with `skip`/`top`. A row without a readable `updatedAt` sorts first and passes every
    /// bound (a server that does not maintain the column).
    actor RawRowsRemote: SyncRemote {
        let rows: [JSONObject]
        let pageSize: Int
        private(set) var queries: [Query] = []
        init(rows: [JSONObject], pageSize: Int) {
            self.rows = rows
            self.pageSize = pageSize
        }
        func insert(_ item: JSONObject, table: String) async throws -> JSONObject { item }
        func update(_ item: JSONObject, table: String) async throws -> JSONObject { item }
        func delete(id: String, version: String?, table: String) async throws {}
        func read(_ query: Query) async throws -> RemotePage {
            queries.append(query)
            guard queries.count < 50 else { throw RemoteError.server(status: 508, message: "The pull loops.") }
            let key = query.filter?.pullKey
            func instant(_ row: JSONObject) -> Int64 {
                row["updatedAt"]?.stringValue.flatMap(Timestamp.milliseconds(from:)) ?? Int64.min
            }
            let matching = rows.filter { row in
                let at = instant(row)
                guard at != Int64.min, let key else { return true }
                guard at == key.updatedAt, let id = key.id else { return at >= key.updatedAt }
                return (row["id"]?.stringValue ?? "") > id
            }
                .sorted { (instant($0), $0["id"]?.stringValue ?? "") < (instant($1), $1["id"]?.stringValue ?? "") }
            let page = matching.dropFirst(query.skip ?? 0).prefix(min(query.top ?? pageSize, pageSize))
            return RemotePage(items: Array(page))
        }
    }

    private func pull(_ rows: [JSONObject], pageSize: Int, into store: TestStore) async throws -> [Query] {
        let remote = RawRowsRemote(rows: rows, pageSize: pageSize)
        let context = SyncContext(dataSource: store.dataSource, remote: remote)
        try await context.table("TodoItem").pull(queryId: "q", settings: PullSettings(pageSize: pageSize).oneAtATime())
        return await remote.queries
    }

    private func key(_ instant: String, _ id: String?) -> PullKey {
        PullKey(updatedAt: Timestamp.milliseconds(from: instant) ?? -1, id: id)
    }

    private func storedIds(_ store: TestStore) async throws -> [JSONValue?] {
        try await store.dataSource.read(Query(table: "TodoItem", orderBy: [.ascending("id")])).items.map(\.["id"])
    }

    @Test(arguments: StoreKind.allCases)
    func offsetTimestampsMoveTheTokenByInstantNotByText(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        // By text, "02:00+02:00" sorts after "01:00Z"; as instants it is the earliest (00:00Z).
        let rows: [JSONObject] = [
            ["id": "a", "updatedAt": "2026-01-01T02:00:00.000+02:00"],
            ["id": "b", "updatedAt": "2026-01-01T00:30:00.000Z"],
            ["id": "c", "updatedAt": "2026-01-01T01:00:00.000+00:00"],
        ]
        let queries = try await pull(rows, pageSize: 2, into: store)
        #expect(queries.map { $0.filter?.pullKey } == [.start, key("2026-01-01T00:30:00.000Z", "b"),
                                                        key("2026-01-01T01:00:00.000Z", "c")])
        #expect(queries.map { $0.skip ?? -1 } == [0, 0, 0])
        #expect(try await storedIds(store) == ["a", "b", "c"])
        #expect(try await DeltaTokenStore.key(table: "TodoItem", queryId: "q", in: store.dataSource)
                == key("2026-01-01T01:00:00.000Z", "c"))
        // The next pull asks after the stored key, reads nothing again, and ends.
        let again = try await pull(rows, pageSize: 2, into: store)
        #expect(again.map { $0.filter?.pullKey } == [key("2026-01-01T01:00:00.000Z", "c")])
    }

    @Test(arguments: StoreKind.allCases)
    func aPageWhoseOffsetTimestampIsTheGreatestInstantStoresTheTokenInUTC(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let rows: [JSONObject] = [["id": "a", "updatedAt": "2026-01-01T23:30:00.000-02:00"],
                                  ["id": "b", "updatedAt": "2026-01-02T00:15:00.000Z"]]
        let queries = try await pull(rows, pageSize: 50, into: store)
        #expect(queries.map { $0.filter?.pullKey } == [.start, key("2026-01-02T01:30:00.000Z", "a")])
        #expect(try await storedIds(store) == ["a", "b"])
        let token = try #require(try await fixtureTokens(store).first)
        #expect(token.updatedAt == "2026-01-02T01:30:00.000Z" && token.afterId == "a")
    }

    @Test(arguments: StoreKind.allCases)
    func recordsWithoutUpdatedAtArePulledByPagingWithSkipAndThePullEnds(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let rows: [JSONObject] = [["id": "a"], ["id": "b"], ["id": "c"]]
        let queries = try await pull(rows, pageSize: 2, into: store)
        // No page ends on a record with a key, so the pull pages from the start by position until the empty page,
        // and stores no token.
        #expect(queries.map { $0.filter?.pullKey } == Array(repeating: .start, count: 3))
        #expect(queries.map { $0.skip ?? -1 } == [0, 2, 3])
        #expect(try await storedIds(store) == ["a", "b", "c"])
        #expect(try await DeltaTokenStore.token(table: "TodoItem", queryId: "q", in: store.dataSource) == nil)
        // A second pull does the same and ends.
        let again = try await pull(rows, pageSize: 2, into: store)
        #expect(again.map { $0.skip ?? -1 } == [0, 2, 3])
    }

    @Test(arguments: StoreKind.allCases)
    func recordsWithAndWithoutUpdatedAtInOnePageMoveTheTokenToTheDatedMaximum(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let rows: [JSONObject] = [["id": "a"], ["id": "b", "updatedAt": "2026-01-01T00:00:00.000+01:00"], ["id": "c"]]
        let queries = try await pull(rows, pageSize: 50, into: store)
        // The rows without a timestamp pass every bound, so the page after b's key ends without a key: that instant
        // is paged by position, and the pull ends.
        let at = "2025-12-31T23:00:00.000Z"
        #expect(queries.map { $0.filter?.pullKey } == [.start, key(at, "b"), key(at, nil), key(at, nil)])
        #expect(queries.map { $0.skip ?? -1 } == [0, 0, 0, 3])
        #expect(try await storedIds(store) == ["a", "b", "c"])
    }

    private func fixtureTokens(_ store: TestStore) async throws -> [DeltaToken] {
        try await SyncContext(dataSource: store.dataSource, remote: RawRowsRemote(rows: [], pageSize: 1)).deltaTokens()
    }
}
