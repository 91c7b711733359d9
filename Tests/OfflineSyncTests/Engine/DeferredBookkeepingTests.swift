import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// A pushed operation's bookkeeping is applied without waiting for durability: a power cut that loses it only means
/// that the operation is sent again, and the server's answer then counts as success.
struct DeferredBookkeepingTests {
    /// An in-memory store that keeps a log of its applies and, on a simulated power cut, keeps only the applies up to
    /// the last durable one.
    actor PowerCutDataSource: SyncContextDataSource {
        private var live = InMemoryDataSource()
        private var log: [(changes: [StoreChange], durable: Bool)] = []
        private(set) var deferred = 0

        func read(table: String, id: String) async throws -> JSONObject? { try await live.read(table: table, id: id) }
        func read(_ query: Query) async throws -> QueryResult { try await live.read(query) }

        func apply(_ changes: [StoreChange]) async throws {
            try await live.apply(changes)
            log.append((changes, true))
        }

        func applyDeferringDurability(_ changes: [StoreChange]) async throws {
            try await live.apply(changes)
            log.append((changes, false))
            deferred += 1
        }

        /// Loses every apply after the last durable one, as a power cut may.
        func cutPower() async throws {
            let kept = log.lastIndex(where: \.durable).map { Array(log[...$0]) } ?? []
            live = InMemoryDataSource()
            for entry in kept { try await live.apply(entry.changes) }
            log = kept
        }
    }

    @Test func lostBookkeepingOfPushedInsertsUpdatesAndDeletesEndsInOneMorePushWithoutErrors() async throws {
        let store = PowerCutDataSource()
        let remote = InMemoryRemote()
        await remote.seed([["id": "u", "text": "server"], ["id": "d", "text": "server"]], table: "TodoItem")
        var context = SyncContext(dataSource: store, remote: remote)
        try await context.table("TodoItem").pull()
        let seededVersion = try await context.table("TodoItem").read(id: "u")?["version"]
        try await context.table("TodoItem").insert(["id": "i", "text": "new"])
        try await context.table("TodoItem").update(["id": "u", "text": "edited", "version": seededVersion ?? .null])
        if let deleted = try await context.table("TodoItem").read(id: "d") { try await context.table("TodoItem").delete(deleted) }
        #expect(try await context.push().pushed == 3)
        #expect(await store.deferred == 3)

        try await store.cutPower()
        context = SyncContext(dataSource: store, remote: remote)
        #expect(try await context.pendingOperations().map(\.attempted) == [true, true, true])
        await remote.clearRequests()
        #expect(try await context.push().pushed == 3)
        #expect(try await context.pendingOperations().isEmpty)
        #expect(await remote.requests == ["POST TodoItem/i", "PATCH TodoItem/u", "DELETE TodoItem/d"])
        #expect(await remote.items(table: "TodoItem").map { $0["text"] } == ["new", "edited"])
        #expect(try await context.table("TodoItem").read(id: "u") == (await remote.item(id: "u", table: "TodoItem")))
    }

    /// The pages of an incremental pull do not wait for durability; the pull stores its last token again, durably,
    /// before it returns, so a power cut after it loses nothing, even when its last apply was a deferred page.
    @Test func anIncrementalPullDefersItsPagesAndIsDurableOnceItReturns() async throws {
        let store = PowerCutDataSource()
        let rows = Self.rowsAtDistinctInstants(20)
        let context = SyncContext(dataSource: store, remote: CannedRemote(pages: [Array(rows[..<10]), Array(rows[10...])]))
        try await context.table("TodoItem").pull(queryId: "q", settings: PullSettings(pageSize: 10).oneAtATime())
        #expect(await store.deferred == 2, "two pages, each with its token")
        try await store.cutPower()
        #expect(try await context.table("TodoItem").read(Query(table: "TodoItem")).items.count == 20)
        #expect(try await DeltaTokenStore.token(table: "TodoItem", queryId: "q", in: store) == Timestamp.milliseconds(from: rows[19]["updatedAt"]?.stringValue ?? ""))
    }

    /// A pull that fails after some pages leaves them undurable; a power cut then loses them with their tokens,
    /// never a page without its token or the reverse, and the next pull brings everything back.
    @Test func aPowerCutAfterAFailedPullLosesWholePagesWithTheirTokensAndTheNextPullRestoresThem() async throws {
        let store = PowerCutDataSource()
        let remote = InMemoryRemote(pageSize: 10)
        await remote.seed(Self.rowsAtDistinctInstants(25), table: "TodoItem")
        let context = SyncContext(dataSource: store, remote: ThirdReadFails(remote))
        await #expect(throws: RemoteError.self) {
            try await context.table("TodoItem").pull(queryId: "q", settings: PullSettings(pageSize: 10))
        }
        let stored = try await context.table("TodoItem").read(Query(table: "TodoItem")).items.count
        #expect(stored > 0 && stored < 25, "the pages before the lost connection")
        try await store.cutPower()
        #expect(try await context.table("TodoItem").read(Query(table: "TodoItem")).items.isEmpty)
        #expect(try await DeltaTokenStore.token(table: "TodoItem", queryId: "q", in: store) == nil)
        let restarted = SyncContext(dataSource: store, remote: remote)
        try await restarted.table("TodoItem").pull(queryId: "q", settings: PullSettings(pageSize: 10))
        #expect(try await restarted.table("TodoItem").read(Query(table: "TodoItem")).items.count == 25)
    }

    /// Rows each updated a second after the previous one, so that every page of a pull moves the delta token.
    static func rowsAtDistinctInstants(_ count: Int) -> [JSONObject] {
        (0..<count).map { ["id": .string("r\($0)"), "updatedAt": .string(Timestamp.string(fromMilliseconds: 1_767_225_600_000 + Int64($0) * 1_000))] }
    }

    /// A remote whose third read fails, as a connection lost in the middle of a pull.
    actor ThirdReadFails: SyncRemote {
        let base: InMemoryRemote
        private var reads = 0
        init(_ base: InMemoryRemote) { self.base = base }
        func insert(_ item: JSONObject, table: String) async throws -> JSONObject { try await base.insert(item, table: table) }
        func update(_ item: JSONObject, table: String) async throws -> JSONObject { try await base.update(item, table: table) }
        func delete(id: String, version: String?, table: String) async throws { try await base.delete(id: id, version: version, table: table) }
        func read(_ query: Query) async throws -> RemotePage {
            reads += 1
            if reads == 3 { throw RemoteError.network("The connection was lost.") }
            return try await base.read(query)
        }
    }
}
