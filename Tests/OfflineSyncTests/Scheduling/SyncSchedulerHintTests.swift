import Testing
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// `SyncScheduler.remoteChanged(tables:)`, `suspend()` and `resume()` against `InMemoryRemote` on a test clock.
struct SyncSchedulerHintTests {
    typealias Setup = SyncSchedulerTests.Setup

    /// Starts `setup`'s scheduler and returns once its first sync ended and it waits for the next.
    private func started(_ setup: Setup) async -> Bool {
        await setup.scheduler.start()
        guard await eventually({ await setup.pulls() == 1 }) else { return false }
        return await setup.settled()
    }

    @Test func aHundredHintsDuringAPullCostOneMorePullAfterIt() async throws {
        let setup = Setup()
        await setup.suspending.suspendNext(.read)
        await setup.scheduler.start()
        await setup.suspending.waitUntilSuspended()
        for _ in 0..<100 { await setup.scheduler.remoteChanged(tables: ["TodoItem"]) }
        await setup.suspending.resume()
        #expect(await setup.settled())
        #expect(await setup.pulls() == 1)
        setup.clock.advance(by: .seconds(1))
        #expect(await eventually { await setup.pulls() == 2 })
        #expect(await eventually { await setup.scheduler.idleWaits != nil })
        setup.clock.advance(by: .seconds(30))
        #expect(await setup.settled())
        #expect(await setup.pulls() == 2)
        await setup.scheduler.stop()
    }

    @Test func aBurstOfHintsWhileIdleIsOnePullAfterTheHintDelay() async throws {
        let setup = Setup()
        #expect(await started(setup))
        for _ in 0..<100 { await setup.scheduler.remoteChanged(tables: ["TodoItem"]) }
        #expect(await setup.scheduler.hintedTables == ["TodoItem"])
        #expect(await setup.pulls() == 1)
        setup.clock.advance(by: .seconds(1))
        #expect(await eventually { await setup.pulls() == 2 })
        #expect(await eventually {
            guard await setup.scheduler.hintedTables.isEmpty else { return false }
            return await setup.scheduler.idleWaits != nil
        })
        #expect(await setup.pulls() == 2)
        #expect(await setup.remote.requests.filter { $0.hasPrefix("POST") }.isEmpty)
        await setup.scheduler.stop()
    }

    @Test func aHintForATableNoStepPullsIsIgnored() async throws {
        let setup = Setup()
        await setup.scheduler.remoteChanged(tables: ["Elsewhere"])
        #expect(await setup.scheduler.hintedTables.isEmpty)
    }

    @Test func suspendingCancelsTheRunningSyncAndResumingCatchesUp() async throws {
        let setup = Setup()
        try await setup.todo.insert(["id": "a"])
        await setup.suspending.suspendNext(.insert, at: .beforeServer)
        await setup.scheduler.start()
        await setup.suspending.waitUntilSuspended()
        let scheduler = setup.scheduler
        let suspending = Task { await scheduler.suspend() }
        #expect(await eventually { await scheduler.isSuspended })
        await setup.suspending.resume()
        await suspending.value
        #expect(await setup.remote.requests.isEmpty)
        // Suspended: neither a write, the interval nor a hint starts anything.
        try await setup.todo.insert(["id": "b"])
        await scheduler.remoteChanged(tables: ["TodoItem"])
        setup.clock.advance(by: .seconds(3_600))
        #expect(await eventually { await scheduler.idleWaits != nil })
        #expect(await setup.remote.requests.isEmpty)
        await scheduler.resume()
        #expect(await eventually { (try? await setup.context.status().pendingOperations) == 0 })
        #expect(await setup.remote.requests.prefix(2) == ["POST TodoItem/a", "POST TodoItem/b"])
        await scheduler.stop()
    }

    @Test func aSchedulerSuspendedBeforeItStartsStartsNothingUntilResumed() async throws {
        let setup = Setup()
        await setup.scheduler.suspend()
        await setup.scheduler.start()
        #expect(await eventually { await setup.scheduler.idleWaits != nil })
        #expect(await setup.remote.requests.isEmpty)
        await setup.scheduler.resume()
        #expect(await eventually { await setup.pulls() == 1 })
        await setup.scheduler.stop()
    }
}
