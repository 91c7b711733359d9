import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// `status()` and `statusUpdates()`: the queue's length, what runs, and how the last sync ended.
struct SyncStatusTests {
    @Test(arguments: StoreKind.allCases)
    func theStatusCountsTheQueueAndRecordsHowTheLastSyncEnded(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        #expect(try await fixture.context.status() == SyncStatus())
        try await fixture.todo.insert(["id": "a"])
        try await fixture.context.table("Other").insert(["id": "b"])
        #expect(try await fixture.context.status().pendingOperations == 2)

        await fixture.remote.failNext(1, with: .network("offline"))
        await #expect(throws: PushError.self) { try await fixture.context.push(settings: .oneAtATime) }
        var status = try await fixture.context.status()
        #expect(status.pendingOperations == 2 && !status.isPushing && status.lastSyncCompleted == nil)
        #expect(status.lastErrorMessage?.contains("offline") == true)

        try await fixture.context.push()
        status = try await fixture.context.status()
        #expect(status.pendingOperations == 0 && status.lastErrorMessage == nil && status.lastSyncCompleted != nil)
        #expect(status.progress == nil)
    }

    @Test func theQueueLengthIsReadFromTheStoreAfterARestart() async throws {
        var fixture = try await EngineFixture(.journal)
        try await fixture.todo.insert(["id": "a"])
        try await fixture.restart()
        #expect(try await fixture.context.status().pendingOperations == 1)
    }

    @Test func updatesStartWithTheCurrentStatusAndFollowAPushAsItRuns() async throws {
        let (fixture, suspending) = try await EngineFixture.suspended(.inMemory)
        try await fixture.todo.insert(["id": "a"])
        var updates = fixture.context.statusUpdates().makeAsyncIterator()
        #expect(await updates.next() == SyncStatus(pendingOperations: 1))

        await suspending.suspendNext(.insert, at: .beforeServer)
        let push = await suspending.parked { try await fixture.context.push() }
        var running = await updates.next()
        while running?.progress?.phase != .started { running = await updates.next() }
        #expect(running?.isPushing == true && running?.pendingOperations == 1)

        await suspending.resume()
        _ = try await push.value
        var settled = await updates.next()
        while settled?.lastSyncCompleted == nil { settled = await updates.next() }
        #expect(settled?.isPushing == false && settled?.pendingOperations == 0 && settled?.progress == nil)
    }

    @Test func aPullShowsAsPullingWithItsProgressUntilItEnds() async throws {
        let (fixture, suspending) = try await EngineFixture.suspended(.inMemory)
        await fixture.remote.seed([["id": "a"]], table: "TodoItem")
        var updates = fixture.context.statusUpdates().makeAsyncIterator()
        #expect(await updates.next() == SyncStatus())
        await suspending.suspendNext(.read, at: .beforeServer)
        let pull = await suspending.parked { try await fixture.todo.pull() }
        var pulling = await updates.next()
        while pulling?.isPulling != true { pulling = await updates.next() }
        #expect(pulling?.isPushing == false)
        guard case .pull(table: "TodoItem", queryId: nil)? = pulling?.progress?.activity else {
            Issue.record("expected the pull's progress, got \(String(describing: pulling))"); return
        }
        await suspending.resume()
        try await pull.value
        var ended = await updates.next()
        while ended?.lastSyncCompleted == nil { ended = await updates.next() }
        #expect(ended?.isPulling == false && ended?.progress == nil && ended?.lastErrorMessage == nil)
    }

    @Test func aPullOfSeveralTablesShowsAsPullingUntilItsLastTableEnds() async throws {
        let (fixture, suspending) = try await EngineFixture.suspended(.inMemory)
        await fixture.remote.seed([["id": "a"]], table: "TodoItem")
        await fixture.remote.seed([["id": "b"]], table: "Other")
        var reports = await fixture.context.progressUpdates().makeAsyncIterator()
        await suspending.suspendNext(.read, at: .beforeServer)
        let context = fixture.context
        let pull = await suspending.parked {
            try await context.pull([PullRequest(Query(table: "TodoItem")), PullRequest(Query(table: "Other"))])
        }
        // One table's first read is parked; the other table's pull runs to its end.
        var report = await reports.next()
        while report?.phase != .finished { report = await reports.next() }
        #expect(try await fixture.context.status().isPulling, "the parked table still pulls after \(String(describing: report))")
        await suspending.resume()
        try await pull.value
        #expect(try await fixture.context.status().isPulling == false)
    }

    @Test(arguments: StoreKind.allCases)
    func twoContextsOnOneStoreAgreeOnTheQueueAfterEitherWrites(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let other = SyncContext(dataSource: fixture.store.dataSource, remote: fixture.remote)
        #expect(try await other.status().pendingOperations == 0)
        try await fixture.todo.insert(["id": "a"])
        #expect(try await other.status().pendingOperations == 1)
        try await other.table("TodoItem").insert(["id": "b"])
        #expect(try await fixture.context.status().pendingOperations == 2)
        try await fixture.context.push()
        #expect(try await other.status().pendingOperations == 0)
    }

    @Test func aStatusStreamFollowsTheWritesOfAnotherContextOnTheStore() async throws {
        let fixture = try await EngineFixture(.inMemory)
        let other = SyncContext(dataSource: fixture.store.dataSource, remote: fixture.remote)
        let latest = LockedValue<SyncStatus?>(nil)
        let follower = Task { for await status in other.statusUpdates() { latest.withLock { $0 = status } } }
        defer { follower.cancel() }
        #expect(await eventually { latest.withLock { $0 } != nil })
        try await fixture.todo.insert(["id": "a"])
        #expect(await eventually { latest.withLock { $0?.pendingOperations } == 1 })
        try await fixture.context.push()
        #expect(await eventually { latest.withLock { $0?.pendingOperations } == 0 })
    }

    @Test func aCancelledIterationReleasesItsStream() async throws {
        let fixture = try await EngineFixture(.inMemory)
        let started = AsyncStream<Void>.makeStream()
        let consumer = Task {
            for await _ in fixture.context.statusUpdates() { started.continuation.yield() }
        }
        for await _ in started.stream { break }
        #expect(await fixture.context.statusPublisher.isObserved)
        consumer.cancel()
        await consumer.value
        // The stream is released by a task of its own: wait for it.
        #expect(await eventually { await !fixture.context.statusPublisher.isObserved })
    }
}
