import Testing
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// `SyncScheduler.runOnce(budget:)` against an in-process back end whose every request takes one second on a test
/// clock: where a budget cuts a push and a pull, what it leaves, and how the next run goes on.
struct SyncSchedulerRunOnceTests {
    struct Setup {
        let server = InMemoryRemote()
        let clock = TestClock()
        let store = InMemoryDataSource()
        let context: SyncContext
        let scheduler: SyncScheduler<TestClock>
        let clocked: ClockedRemote
        /// The ids of the seeded rows in the order a pull stores them (by `updatedAt`, then `id`).
        let pullOrder: [String]
        let notes: [String]

        init(notes count: Int = 200, rows: Int = 5_000, remote: ((any SyncRemote) -> any SyncRemote)? = nil) async throws {
            clocked = ClockedRemote(base: server, clock: clock)
            context = SyncContext(dataSource: store, remote: remote?(clocked) ?? clocked)
            scheduler = SyncScheduler(context: context, configuration: .init(steps: [
                .push, .pull(table: "TodoItem", queryId: "all"),
            ]), clock: clock)
            await server.seed((0..<rows).map { ["id": .string("row-\($0)"), "text": .string("row \($0)")] }, table: "TodoItem")
            pullOrder = await server.items(table: "TodoItem")
                .sorted { ($0["updatedAt"]?.stringValue ?? "", $0["id"]?.stringValue ?? "") < ($1["updatedAt"]?.stringValue ?? "", $1["id"]?.stringValue ?? "") }
                .compactMap { $0["id"]?.stringValue }
            notes = (0..<count).map { "note-\(1_000 + $0)" }
            for id in notes { try await context.table("Note").insert(["id": .string(id)]) }
        }

        /// The ids the device holds in `table`.
        func local(_ table: String) async throws -> Set<String> {
            Set(try await store.read(Query(table: table)).items.compactMap { $0["id"]?.stringValue })
        }

        /// Expects the server and the device to be where a complete run passes through: the first notes pushed, the
        /// rest queued and never marked attempted; the first rows in pull order stored, and only those.
        /// A failed request leaves its operation marked attempted: `attempted` such operations may be.
        func expectPrefixOfACompleteRun(attempted: Int = 0, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let pushed = await server.items(table: "Note").compactMap { $0["id"]?.stringValue }
            #expect(pushed == Array(notes.prefix(pushed.count)), sourceLocation: sourceLocation)
            let queued = try await context.pendingOperations()
            #expect(queued.map(\.itemId) == Array(notes.dropFirst(pushed.count)), sourceLocation: sourceLocation)
            #expect(queued.filter(\.attempted).count <= attempted, sourceLocation: sourceLocation)
            let rows = try await local("TodoItem")
            #expect(Set(pullOrder.prefix(rows.count)) == rows, sourceLocation: sourceLocation)
        }

        /// Whether the pages served to this device held at most one page (50 records) more than those served to
        /// `single`, which ran once to its end: no page but a cut one was asked twice.
        func servedAtMostOnePageMore(than single: Setup) -> Bool {
            clocked.servedRecords.current <= single.clocked.servedRecords.current + 50
        }
    }

    @Test func aRunStartsNoRequestItCannotFinishWithinItsBudget() async throws {
        let setup = try await Setup(notes: 10, rows: 0)
        // Requests at 0, 1, 2 and 3 s end by 4.5 s with half a request's margin; one at 4 s would not.
        let report = await setup.scheduler.runOnce(budget: .milliseconds(4_500))
        #expect(report.pushedOperations == 4)
        #expect(report.completedSteps == 0 && report.remainingSteps == 2)
        #expect(report.stoppedByBudget && report.failure == nil)
        #expect(setup.clock.now.offset == .seconds(4))
        try await setup.expectPrefixOfACompleteRun()
    }

    @Test func runsCutAtEveryRequestEndWhereOneLongRunEnds() async throws {
        let setup = try await Setup()
        var runs = 0
        var report = SyncRunReport(completedSteps: 0, remainingSteps: 2)
        while !report.isComplete, runs < 400 {
            // Two seconds leave room for one request of a second, not two.
            report = await setup.scheduler.runOnce(budget: .seconds(2))
            runs += 1
            #expect(report.failure == nil)
            #expect(report.pushedOperations + report.pulledRecords > 0 || report.isComplete)
            try await setup.expectPrefixOfACompleteRun()
        }
        let single = try await Setup()
        let long = await single.scheduler.runOnce(budget: .seconds(100_000))
        #expect(long.isComplete && !long.stoppedByBudget)
        #expect(long.pushedOperations == 200 && long.pulledRecords == 5_000)
        #expect(report.isComplete)
        let held = try await setup.local("TodoItem"), heldByOne = try await single.local("TodoItem")
        #expect(held == heldByOne)
        #expect(await setup.server.items(table: "Note").count == 200)
        // One request a run, none asked twice: 200 pushes, then 100 pages of 50 and the empty page that ends the pull.
        #expect(runs == 200 + 101)
        #expect(setup.servedAtMostOnePageMore(than: single))
    }

    @Test(arguments: [1, 150, 199, 200, 201, 230, 290])
    func aSecondRunAfterACutEndsWhereOneLongRunEnds(afterRequests cut: Int) async throws {
        let single = try await Setup(notes: 200, rows: 5_000)
        _ = await single.scheduler.runOnce(budget: .seconds(100_000))
        let setup = try await Setup(notes: 200, rows: 5_000)
        // `cut` requests start by `cut - 1` s and end by `cut + 0.5` s; the next would end at `cut + 1.5` s at best.
        let first = await setup.scheduler.runOnce(budget: .seconds(cut) + .milliseconds(500))
        #expect(first.stoppedByBudget && first.failure == nil)
        #expect(first.pushedOperations == min(cut, 200))
        try await setup.expectPrefixOfACompleteRun()
        let second = await setup.scheduler.runOnce(budget: .seconds(100_000))
        #expect(second.isComplete && second.failure == nil)
        #expect(first.pushedOperations + second.pushedOperations == 200)
        #expect(first.pulledRecords + second.pulledRecords == 5_000)
        let held = try await setup.local("TodoItem"), heldByOne = try await single.local("TodoItem")
        #expect(held == heldByOne)
        #expect(setup.servedAtMostOnePageMore(than: single))
    }

    @Test func aZeroBudgetSendsNothing() async throws {
        let setup = try await Setup(notes: 3, rows: 10)
        let report = await setup.scheduler.runOnce(budget: .zero)
        #expect(report.stoppedByBudget && report.pushedOperations == 0 && report.completedSteps == 0)
        #expect(await setup.server.requests.isEmpty)
    }

    @Test func aFailingStepEndsTheRunWithItsError() async throws {
        let setup = try await Setup(notes: 3, rows: 10)
        await setup.server.setOffline(true)
        let report = await setup.scheduler.runOnce(budget: .seconds(60))
        #expect(!report.stoppedByBudget)
        #expect(report.failure is PushError)
        #expect(report.completedSteps == 0 && report.remainingSteps == 2)
        try await setup.expectPrefixOfACompleteRun(attempted: 1)
    }

    @Test func cancellingTheRunningTaskStopsItAsTheBudgetWould() async throws {
        var suspending: SuspendingRemote?
        let setup = try await Setup(notes: 0, rows: 500) { base in
            let remote = SuspendingRemote(base, whenCancelled: .throwsCancellationError)
            suspending = remote
            return remote
        }
        let remote = try #require(suspending)
        await remote.suspendNext(.read, at: .beforeServer, skipping: 2)
        let scheduler = setup.scheduler
        let run = Task { await scheduler.runOnce(budget: .seconds(3_600)) }
        await remote.waitUntilSuspended()
        run.cancel()
        await remote.resume()
        let report = await run.value
        #expect(report.stoppedByBudget && report.failure == nil)
        #expect(report.completedSteps == 1 && report.remainingSteps == 1)
        let held = try await setup.local("TodoItem")
        #expect(report.pulledRecords == held.count)
        try await setup.expectPrefixOfACompleteRun()
        let next = await scheduler.runOnce(budget: .seconds(3_600))
        #expect(next.isComplete && report.pulledRecords + next.pulledRecords == 500)
    }
}
