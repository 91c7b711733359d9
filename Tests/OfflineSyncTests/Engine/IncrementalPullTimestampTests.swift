import Testing
@testable import OfflineSync
import OfflineSyncTesting

/// Incremental pull over `updatedAt` values that are not the server's canonical `…Z` form, or missing: the delta
/// token is computed from instants, and the page loop neither loops nor skips.
struct IncrementalPullTimestampTests {
    /// A server that keeps its rows' `updatedAt` exactly as given. It honours the `updatedAt ge` bound by instant,
    /// sorts by instant then id, and pages with `skip`/`top`. A row without a readable `updatedAt` sorts first and
    /// passes every bound (a server that does not maintain the column).
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
            let bound = Self.bound(query.filter).flatMap(Timestamp.milliseconds(from:)) ?? Int64.min
            func instant(_ row: JSONObject) -> Int64 {
                row["updatedAt"]?.stringValue.flatMap(Timestamp.milliseconds(from:)) ?? Int64.min
            }
            let matching = rows.filter { instant($0) == Int64.min || instant($0) >= bound }
                .sorted { (instant($0), $0["id"]?.stringValue ?? "") < (instant($1), $1["id"]?.stringValue ?? "") }
            let page = matching.dropFirst(query.skip ?? 0).prefix(min(query.top ?? pageSize, pageSize))
            return RemotePage(items: Array(page))
        }

        /// The `updatedAt ge` bound of a pull filter.
        static func bound(_ filter: Filter?) -> String? {
            switch filter {
            case .comparison(Field("updatedAt"), .greaterThanOrEqual, .string(let token))?: return token
            case .and(_, let rhs)?: return bound(rhs)
            default: return nil
            }
        }
    }

    private func pull(_ rows: [JSONObject], pageSize: Int, into store: TestStore) async throws -> [Query] {
        let remote = RawRowsRemote(rows: rows, pageSize: pageSize)
        let context = SyncContext(dataSource: store.dataSource, remote: remote)
        try await context.table("TodoItem").pull(queryId: "q", settings: PullSettings(pageSize: pageSize).oneAtATime())
        return await remote.queries
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
        #expect(queries.map { RawRowsRemote.bound($0.filter) ?? "?" } == ["1970-01-01T00:00:00.000Z", "2026-01-01T00:30:00.000Z",
                                                                           "2026-01-01T01:00:00.000Z", "2026-01-01T01:00:00.000Z"])
        #expect(queries.map { $0.skip ?? -1 } == [0, 0, 0, 1])
        #expect(try await storedIds(store) == ["a", "b", "c"])
        #expect(try await DeltaTokenStore.token(table: "TodoItem", queryId: "q", in: store.dataSource)
                == Timestamp.milliseconds(from: "2026-01-01T01:00:00.000Z"))
        // The next pull starts at the stored instant, re-reads only the boundary record, and ends.
        let again = try await pull(rows, pageSize: 2, into: store)
        #expect(again.map { RawRowsRemote.bound($0.filter) ?? "?" } == ["2026-01-01T01:00:00.000Z", "2026-01-01T01:00:00.000Z"])
        #expect(again.map { $0.skip ?? -1 } == [0, 1])
    }

    @Test(arguments: StoreKind.allCases)
    func aPageWhoseOffsetTimestampIsTheGreatestInstantStoresTheTokenInUTC(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let rows: [JSONObject] = [["id": "a", "updatedAt": "2026-01-01T23:30:00.000-02:00"],
                                  ["id": "b", "updatedAt": "2026-01-02T00:15:00.000Z"]]
        let queries = try await pull(rows, pageSize: 50, into: store)
        #expect(queries.map { RawRowsRemote.bound($0.filter) ?? "?" } == ["1970-01-01T00:00:00.000Z", "2026-01-02T01:30:00.000Z",
                                                                           "2026-01-02T01:30:00.000Z"])
        #expect(try await storedIds(store) == ["a", "b"])
        let token = try #require(try await fixtureTokens(store).first)
        #expect(token.updatedAt == "2026-01-02T01:30:00.000Z")
    }

    @Test(arguments: StoreKind.allCases)
    func recordsWithoutUpdatedAtArePulledByPagingWithSkipAndThePullEnds(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let rows: [JSONObject] = [["id": "a"], ["id": "b"], ["id": "c"]]
        let queries = try await pull(rows, pageSize: 2, into: store)
        // The first page moves the token from "none" to the epoch (skip restarts once); after that every page
        // shares the token, so skip grows until the empty page.
        #expect(queries.map { RawRowsRemote.bound($0.filter) ?? "?" } == Array(repeating: "1970-01-01T00:00:00.000Z", count: 4))
        #expect(queries.map { $0.skip ?? -1 } == [0, 0, 2, 3])
        #expect(try await storedIds(store) == ["a", "b", "c"])
        #expect(try await DeltaTokenStore.token(table: "TodoItem", queryId: "q", in: store.dataSource) == 0)
        // A second pull starts from the stored epoch token and ends after one pass.
        let again = try await pull(rows, pageSize: 2, into: store)
        #expect(again.map { $0.skip ?? -1 } == [0, 2, 3])
    }

    @Test(arguments: StoreKind.allCases)
    func recordsWithAndWithoutUpdatedAtInOnePageMoveTheTokenToTheDatedMaximum(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let rows: [JSONObject] = [["id": "a"], ["id": "b", "updatedAt": "2026-01-01T00:00:00.000+01:00"], ["id": "c"]]
        let queries = try await pull(rows, pageSize: 50, into: store)
        #expect(queries.map { RawRowsRemote.bound($0.filter) ?? "?" } == ["1970-01-01T00:00:00.000Z", "2025-12-31T23:00:00.000Z",
                                                                           "2025-12-31T23:00:00.000Z"])
        #expect(queries.map { $0.skip ?? -1 } == [0, 0, 3])
        #expect(try await storedIds(store) == ["a", "b", "c"])
    }

    private func fixtureTokens(_ store: TestStore) async throws -> [DeltaToken] {
        try await SyncContext(dataSource: store.dataSource, remote: RawRowsRemote(rows: [], pageSize: 1)).deltaTokens()
    }
}
