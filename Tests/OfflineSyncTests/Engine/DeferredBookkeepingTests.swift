import Testing
@testable import OfflineSync
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
}
