import Foundation
import OfflineSync
import OfflineSyncTesting

extension BenchRunner {
    /// What P1 gives each run: a background task's 30 s, scaled to the simulated network.
    static let runBudget = Duration.seconds(2)

    /// P1, a sync within a budget: 100 inserts queued offline in a fresh `.always` store and 20,000 records on the
    /// in-process back end, every request of which waits 50 ms, need about 5 s; `SyncScheduler.runOnce(budget:)`
    /// with 2 s pushes and pulls what fits. Timed: how far past the budget the run returned (negative: before it),
    /// the worst of the runs (10; 1 with `--quick`). Each run must have stopped for its budget.
    func runBudgetedRuns() async throws {
        let records = BenchmarkRecords.generate(count: 20_000).map(\.object)
        var worst = -Double.infinity
        for run in 0..<sizes.budgetRuns {
            let remote = InMemoryRemote(pageSize: 50)
            await remote.seed(records, table: "Pulled")
            let (store, context, _) = try await queuedInserts(100, remote: remote, directory: "p1")
            await remote.setLatency(Self.networkLatency)
            let scheduler = SyncScheduler(context: context, configuration: .init(steps: [
                .push, .pull(table: "Pulled", queryId: "p1"),
            ]))
            let start = MonotonicClock.now()
            let report = await scheduler.runOnce(budget: Self.runBudget)
            let seconds = MonotonicClock.now() - start
            try await store.close()
            guard report.stoppedByBudget, report.failure == nil else {
                throw BenchFailure.checkFailed(workload: "P1", detail: "run \(run + 1) was not stopped by its budget: "
                                               + "\(report.remainingSteps) steps left, failure \(report.failure.map { "\($0)" } ?? "none")")
            }
            worst = max(worst, seconds - Self.seconds(Self.runBudget))
        }
        try report.record("P1", "p1_budget_overrun_ms", worst * 1000, "ms")
    }
}
