import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Two contexts on one store share it: their writes are transactions of the store, and neither works from a stale
/// copy of what the other changed.
struct SharedStoreTests {
    @Test(arguments: StoreKind.allCases)
    func writesOfTwoContextsOnOneStoreQueueEveryOperationWithItsOwnId(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let other = SyncContext(dataSource: fixture.store.dataSource, remote: fixture.remote)
        // Both load their caches first, so that each has a next operation id in memory before the other writes.
        try await fixture.todo.insert(["id": "first-a"])
        try await other.table("TodoItem").insert(["id": "first-b"])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<20 {
                let context = n.isMultiple(of: 2) ? fixture.context : other
                group.addTask { try await context.table("TodoItem").insert(["id": .string("item-\(n)")]) }
            }
            try await group.waitForAll()
        }
        let operations = try await fixture.operations()
        #expect(operations.count == 22)
        #expect(Set(operations.map(\.id)).count == 22, "no operation overwrote another's row")
        #expect(try await other.pendingOperations().map(\.id) == operations.map(\.id))
        #expect(try await other.push().pushed == 22)
        #expect(await fixture.remote.items(table: "TodoItem").count == 22)
    }

    @Test(arguments: StoreKind.allCases)
    func anEditThroughASecondContextWhileTheFirstPushesTheItemIsNotLost(_ kind: StoreKind) async throws {
        let (fixture, suspending) = try await EngineFixture.suspended(kind)
        try await fixture.todo.insert(["id": "a", "text": "first"])
        let other = SyncContext(dataSource: fixture.store.dataSource, remote: fixture.remote)
        await suspending.suspendNext(.insert, at: .afterServer)
        let context = fixture.context
        let push = await suspending.parked { try await context.push() }
        var item = try #require(try await other.table("TodoItem").read(id: "a"))
        item["text"] = "second"
        try await other.table("TodoItem").update(item)
        #expect(try await other.pendingOperations().map(\.kind) == [.insert, .update],
                "the edit queued behind the insert in flight, not into it")
        await suspending.resume()
        #expect(try await push.value.pushed >= 1)
        try await other.push()
        #expect(await fixture.remote.item(id: "a", table: "TodoItem")?["text"] == "second")
        #expect(try await other.table("TodoItem").read(id: "a")?["text"] == "second")
    }

    @Test func syncsOfTwoContextsOnOneStoreRunOneAtATime() async throws {
        let fixture = try await EngineFixture(.inMemory)
        let other = SyncContext(dataSource: fixture.store.dataSource, remote: fixture.remote)
        #expect(await fixture.context.syncGate === other.syncGate)
        let elsewhere = SyncContext(dataSource: InMemoryDataSource(), remote: fixture.remote)
        #expect(await fixture.context.syncGate !== elsewhere.syncGate)
    }
}

extension SharedStoreTests {
    @Test(arguments: StoreKind.allCases)
    func anObserverSeesWritesMadeThroughAnotherContextOnTheStore(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let other = SyncContext(dataSource: fixture.store.dataSource, remote: fixture.remote)
        let observed = ObservedElements(fixture.todo.observe(Query(table: "TodoItem", orderBy: [.ascending("id")])))
        #expect(await observed.waitUntil { $0.last?.items.isEmpty == true })
        try await other.table("TodoItem").insert(["id": "from-other"])
        #expect(await observed.waitUntil { $0.last?.items.map { $0["id"] } == ["from-other"] },
                "the observer of the first context saw the insert made through the second")
        try await other.table("TodoItem").delete(["id": "from-other"])
        #expect(await observed.waitUntil { $0.last?.items.isEmpty == true })
    }
}
