import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// `SyncScheduler` against `InMemoryRemote` on a test clock: its triggers, backoff, parking and stop.
struct SyncSchedulerTests {
    struct Setup {
        let context: SyncContext
        let remote: InMemoryRemote
        let clock = TestClock()
        let connectivity = ManualConnectivity()
        let scheduler: SyncScheduler<TestClock>
        /// The remote the context talks to: `remote` behind a gate that can park a call.
        let suspending: SuspendingRemote

        init(interval: Duration? = .seconds(60)) {
            remote = InMemoryRemote()
            suspending = SuspendingRemote(remote, whenCancelled: .throwsCancellationError)
            context = SyncContext(dataSource: InMemoryDataSource(), remote: suspending)
            let configuration = SyncScheduler<TestClock>.Configuration(
                steps: [.push, .pull(table: "TodoItem", queryId: "all")], debounce: .seconds(2),
                maximumDelay: .seconds(10), interval: interval, initialBackoff: .seconds(5), maximumBackoff: .seconds(30))
            scheduler = SyncScheduler(context: context, configuration: configuration, connectivity: connectivity, clock: clock)
        }

        var todo: SyncTable { context.table("TodoItem") }

        /// How many pulls reached the server.
        func pulls() async -> Int { await remote.requests.filter { $0 == "GET TodoItem" }.count }

        /// Waits until the scheduler sleeps on the clock (its next sync is timed) or parks.
        func settled() async -> Bool {
            await eventually { clock.sleeperCount > 0 }
        }
    }

    /// Takes the network away and gives it back, and returns once `scheduler` has acted on both changes (it waits
    /// again after each).
    static func flap(_ connectivity: ManualConnectivity, _ scheduler: SyncScheduler<TestClock>) async {
        await connectivity.setReachable(false)
        var offlineWaits: Int?
        #expect(await eventually {
            guard await !scheduler.isReachable else { return false }
            offlineWaits = await scheduler.idleWaits
            return offlineWaits != nil
        })
        await connectivity.setReachable(true)
        #expect(await eventually {
            guard await scheduler.isReachable, let offlineWaits, let waits = await scheduler.idleWaits else { return false }
            return waits > offlineWaits
        })
    }

    @Test func itSyncsAtStartAndAgainAfterTheInterval() async throws {
        let setup = Setup()
        try await setup.todo.insert(["id": "a"])
        await setup.scheduler.start()
        #expect(await eventually { await setup.remote.requests.first == "POST TodoItem/a" })
        #expect(await setup.settled())
        let pulls = await setup.pulls()
        setup.clock.advance(by: .seconds(59))
        #expect(await setup.pulls() == pulls)
        setup.clock.advance(by: .seconds(1))
        #expect(await eventually { await setup.pulls() > pulls })
        await setup.scheduler.stop()
    }

    @Test func aLocalWriteIsPushedAfterTheDebounce() async throws {
        let setup = Setup()
        await setup.scheduler.start()
        #expect(await eventually { await setup.pulls() > 0 })
        #expect(await setup.settled())
        try await setup.todo.insert(["id": "b"])
        #expect(await eventually { await setup.scheduler.nextSyncDue == .seconds(2) })
        setup.clock.advance(by: .seconds(1))
        #expect(await !setup.remote.requests.contains("POST TodoItem/b"))
        setup.clock.advance(by: .seconds(1))
        #expect(await eventually { await setup.remote.requests.contains("POST TodoItem/b") })
        await setup.scheduler.stop()
    }

    @Test func failuresBackOffAndOfflineWaitsForConnectivity() async throws {
        let setup = Setup(interval: nil)
        await setup.connectivity.setReachable(false)
        try await setup.todo.insert(["id": "a"])
        await setup.scheduler.start()
        #expect(await eventually { await !setup.scheduler.isReachable })
        await setup.remote.failNext(2, with: .network("down"))
        await setup.connectivity.setReachable(true)
        // Regained: a sync at once, which fails; the next after 5 s, which fails; then after 10 s.
        #expect(await eventually { await setup.scheduler.consecutiveFailures == 1 })
        #expect(await setup.settled())
        setup.clock.advance(by: .seconds(5))
        #expect(await eventually { await setup.scheduler.consecutiveFailures == 2 })
        #expect(await setup.settled())
        let requests = await setup.remote.requests.count
        setup.clock.advance(by: .seconds(9))
        #expect(await setup.remote.requests.count == requests)
        setup.clock.advance(by: .seconds(1))
        #expect(await eventually { await setup.scheduler.consecutiveFailures == 0 })
        #expect(try await setup.context.status().pendingOperations == 0)
        await setup.scheduler.stop()
    }

    @Test func unauthorizedParksUntilASyncIsRequested() async throws {
        let setup = Setup()
        await setup.remote.failNext(1, with: .unauthorized)
        await setup.scheduler.start()
        #expect(await eventually { await setup.scheduler.isParked })
        let requests = await setup.remote.requests.count
        try await setup.todo.insert(["id": "a"])
        setup.clock.advance(by: .seconds(3600))
        #expect(await setup.remote.requests.count == requests)
        await setup.scheduler.syncNow()
        #expect(await eventually { await setup.remote.requests.contains("POST TodoItem/a") })
        #expect(await !setup.scheduler.isParked)
        await setup.scheduler.stop()
    }

    @Test func anEditCollapsedIntoAQueuedOperationRestartsTheDebounce() async throws {
        let setup = Setup()
        await setup.scheduler.start()
        #expect(await eventually { await setup.pulls() > 0 })
        #expect(await setup.settled())
        try await setup.todo.insert(["id": "b"])
        #expect(await eventually { await setup.scheduler.nextSyncDue == .seconds(2) })
        setup.clock.advance(by: .seconds(1))
        try await setup.todo.update(["id": "b", "text": "edited"])
        #expect(try await setup.context.status().pendingOperations == 1, "the edit is collapsed into the insert")
        #expect(await eventually { await setup.scheduler.nextSyncDue == .seconds(3) })
        setup.clock.advance(by: .seconds(2))
        #expect(await eventually { (try? await setup.context.status().pendingOperations) == 0 })
        await setup.scheduler.stop()
    }

    @Test func aWriteOfAnotherContextOnTheStoreIsPushedAfterTheDebounce() async throws {
        let store = InMemoryDataSource(), remote = InMemoryRemote(), clock = TestClock()
        let context = SyncContext(dataSource: store, remote: remote)
        let other = SyncContext(dataSource: store, remote: remote)
        let scheduler = SyncScheduler(context: context, configuration: .init(steps: [.push], debounce: .seconds(2),
                                                                             interval: .seconds(60)), clock: clock)
        await scheduler.start()
        #expect(await eventually { clock.sleeperCount > 0 })
        try await other.table("TodoItem").insert(["id": "a"])
        #expect(await eventually { await scheduler.nextSyncDue == .seconds(2) })
        clock.advance(by: .seconds(2))
        #expect(await eventually { await remote.requests.contains("POST TodoItem/a") })
        await scheduler.stop()
    }

    @Test func aSyncRequestedWhileASyncRunsIsNotLostWhenThatSyncEndsUnauthorized() async throws {
        let setup = Setup()
        try await setup.todo.insert(["id": "a"])
        await setup.remote.failNext(1, with: .unauthorized)
        await setup.suspending.suspendNext(.insert, at: .beforeServer)
        await setup.scheduler.start()
        await setup.suspending.waitUntilSuspended()
        await setup.scheduler.syncNow()     // the user signed in again while the sync ran
        await setup.suspending.resume()
        #expect(await eventually { (try? await setup.context.status().pendingOperations) == 0 })
        #expect(await !setup.scheduler.isParked)
        await setup.scheduler.stop()
    }

    @Test func parkedWithoutAProviderAConnectivityFlapSendsNothing() async throws {
        let setup = Setup()
        await setup.remote.failNext(1, with: .unauthorized)
        await setup.scheduler.start()
        #expect(await eventually { await setup.scheduler.isParked })
        let requests = await setup.remote.requests.count
        await Self.flap(setup.connectivity, setup.scheduler)
        #expect(await setup.remote.requests.count == requests)
        #expect(await setup.scheduler.isParked)
        #expect(await setup.scheduler.nextSyncDue == nil)
        await setup.scheduler.syncNow()
        #expect(await eventually { await setup.pulls() > 0 })
        await setup.scheduler.stop()
    }

    @Test func parkedWithAProviderAConnectivityFlapKeepsTheBackoff() async throws {
        let remote = InMemoryRemote()
        let context = SyncContext(dataSource: InMemoryDataSource(), remote: remote)
        let clock = TestClock(), provider = SignIn(), connectivity = ManualConnectivity()
        let scheduler = SyncScheduler(context: context, configuration: .init(steps: [.push], interval: nil,
                                                                             initialBackoff: .seconds(5)),
                                      connectivity: connectivity, authentication: provider, clock: clock)
        try await context.table("TodoItem").insert(["id": "a"])
        await remote.failNext(1, with: .unauthorized)
        await scheduler.start()
        #expect(await eventually { await scheduler.isParked && clock.sleeperCount > 0 })
        await Self.flap(connectivity, scheduler)
        #expect(await provider.asked == 0)
        #expect(await scheduler.nextSyncDue == .seconds(5))
        clock.advance(by: .seconds(5))
        #expect(await eventually { await provider.asked == 1 })
        await scheduler.stop()
    }

    /// Refuses until `signIn()`, then gives a token.
    actor SignIn: AuthenticationProvider {
        struct SignedOut: Error {}
        private(set) var asked = 0
        private var signedIn = false
        func signIn() { signedIn = true }
        func token(refresh: Bool) async throws -> String {
            asked += 1
            guard signedIn else { throw SignedOut() }
            return "token"
        }
    }

    @Test func parkedOnUnauthorizedItResumesOnceTheProviderYieldsAToken() async throws {
        let remote = InMemoryRemote()
        let context = SyncContext(dataSource: InMemoryDataSource(), remote: remote)
        let clock = TestClock(), provider = SignIn()
        let scheduler = SyncScheduler(context: context, configuration: .init(steps: [.push], interval: nil,
                                                                             initialBackoff: .seconds(5)),
                                      authentication: provider, clock: clock)
        try await context.table("TodoItem").insert(["id": "a"])
        await remote.failNext(1, with: .unauthorized)
        await scheduler.start()
        #expect(await eventually { await scheduler.isParked && clock.sleeperCount > 0 })
        clock.advance(by: .seconds(5))
        #expect(await eventually { await provider.asked == 1 && clock.sleeperCount > 0 })
        #expect(await scheduler.isParked)
        await provider.signIn()
        clock.advance(by: .seconds(10))
        #expect(await eventually { (try? await context.status().pendingOperations) == 0 })
        #expect(await !scheduler.isParked)
        #expect(await provider.asked == 2)
        await scheduler.stop()
    }

    @Test func stopEndsARunningSyncAndNothingRunsAfterIt() async throws {
        let setup = Setup()
        try await setup.todo.insert(["id": "a"])
        await setup.suspending.suspendNext(.insert, at: .beforeServer)
        await setup.scheduler.start()
        await setup.suspending.waitUntilSuspended()
        let stopping = Task { await setup.scheduler.stop() }
        #expect(await eventually { await setup.scheduler.isStopping })
        // The parked request sees its task cancelled once resumed, as HTTPRemote does.
        await setup.suspending.resume()
        await stopping.value
        #expect(await !setup.scheduler.isRunning)
        #expect(await setup.scheduler.loopsEnded == 1, "stop() returned before the loop ended")
        #expect(setup.clock.sleeperCount == 0, "no timer of the scheduler is left")
        #expect(try await setup.context.status().pendingOperations == 1)
        #expect(try await setup.context.status().isPushing == false)

        // Its loop has ended and its watchers too (stop() awaited them): nothing of it is left to send a request.
        try await setup.todo.insert(["id": "late"])
        setup.clock.advance(by: .seconds(3600))
        #expect(await setup.remote.requests.isEmpty)
        #expect(await setup.scheduler.loopsEnded == 1)
    }
}
