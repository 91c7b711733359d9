@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting
import Testing

/// What a context derives from its store (``StoreMirror``) changes when the store has committed a transaction, from
/// what it committed, never while the commit is under way or when it is refused.
struct StoreMirrorTests {
    /// A store whose next `apply` waits, once it has begun, until the test lets it go on.
    actor PausingDataSource: SyncContextDataSource {
        let base = InMemoryDataSource()
        private var pauseNext = false
        private var paused: CheckedContinuation<Void, Never>?

        func pauseNextApply() { pauseNext = true }
        var isPaused: Bool { paused != nil }
        func resume() {
            paused?.resume()
            paused = nil
        }

        func read(table: String, id: String) async throws -> JSONObject? { try await base.read(table: table, id: id) }
        func read(_ query: Query) async throws -> QueryResult { try await base.read(query) }
        func apply(_ changes: [StoreChange]) async throws {
            if pauseNext {
                pauseNext = false
                await withCheckedContinuation { paused = $0 }
            }
            try await base.apply(changes)
        }
    }

    @Test func theStatusCountsAWriteOnlyOnceItIsCommitted() async throws {
        let store = PausingDataSource()
        let context = SyncContext(dataSource: store, remote: InMemoryRemote())
        #expect(try await context.status().pendingOperations == 0)
        await store.pauseNextApply()
        let insert = Task { try await context.table("T").insert(["id": "a"]) }
        #expect(await eventually { await store.isPaused })
        #expect(try await context.status().pendingOperations == 0, "the insert is not committed yet")
        #expect(await context.mirror.nextOperationId == 1, "the id it took is handed out again only once it is committed")
        await store.resume()
        _ = try await insert.value
        #expect(try await context.status().pendingOperations == 1)
        #expect(await context.mirror.nextOperationId == 2)
    }

    @Test func aWriteWaitsForTheContextsCommitUnderWayToBeFollowed() async throws {
        let store = PausingDataSource()
        let context = SyncContext(dataSource: store, remote: InMemoryRemote())
        await store.pauseNextApply()
        let first = Task { try await context.table("T").insert(["id": "a"]) }
        #expect(await eventually { await store.isPaused })
        let second = Task { try await context.table("T").insert(["id": "b"]) }
        await store.resume()
        _ = try await (first.value, second.value)
        let ids = try await context.pendingOperations().map(\.id)
        #expect(ids.count == 2 && Set(ids).count == 2, "two operations with two ids: \(ids)")
    }

    @Test func aRefusedCommitLeavesTheMirrorAsItWas() async throws {
        let store = FailingDataSource()
        let context = SyncContext(dataSource: store, remote: InMemoryRemote())
        try await context.table("T").insert(["id": "a"])
        let before = (await context.mirror.operationIndex?.count, await context.mirror.nextOperationId)
        await store.setFailing(true)
        await #expect(throws: FailingDataSource.InjectedFailure.self) { try await context.table("T").insert(["id": "b"]) }
        #expect(await context.mirror.operationIndex?.count == before.0)
        #expect(await context.mirror.nextOperationId == before.1)
        await store.setFailing(false)
        try await context.table("T").insert(["id": "b"])
        #expect(try await context.pendingOperations().map(\.itemId) == ["a", "b"])
    }
}
