import OfflineSyncCore
extension SyncScheduler {
    /// Runs the configured steps once, in order, within `budget` (a background task's time), and reports how far it
    /// came.
    ///
    /// Before each request the push or pull would start, the run checks that one as slow as the slowest of this run
    /// so far, with half again as margin, ends within the budget; otherwise it stops there: a push finishes the
    /// answers of the requests in flight and leaves the rest queued, unmarked; a pull stores the pages before the
    /// refused one and makes its delta token durable. Nothing is left half stored, and no token passes a record not
    /// stored, so the next run, or ``start()``, goes on from there (an incremental pull asks for the page after the
    /// last one stored; a pull without a query id starts again from its first page).
    ///
    /// Cancelling the task that runs it (a background task's expiration handler) stops it the same way within one
    /// request's time: the requests in flight are cancelled. Either way the report says ``SyncRunReport/stoppedByBudget``
    /// and no failure. A step that fails ends the run with ``SyncRunReport/failure`` set.
    ///
    /// It runs whether or not the scheduler is started or suspended, and waits for a sync running beside it.
    public func runOnce(budget: Duration) async -> SyncRunReport {
        let ledger = SyncBudget(deadline: elapsed + budget, slowest: .zero) { [clock, origin] in
            origin.duration(to: clock.now)
        }
        let steps = configuration.steps
        var completed = 0
        var failure: (any Error)?
        await SyncBudget.$current.withValue(ledger) {
            for step in steps {
                do {
                    try await run(step)
                    completed += 1
                } catch {
                    failure = error
                    return
                }
            }
        }
        var report = SyncRunReport(completedSteps: completed, remainingSteps: steps.count - completed,
                                   pushedOperations: await ledger.pushed, pulledRecords: await ledger.pulled)
        if let failure {
            if await ledger.refused || Task.isCancelled, Self.isStop(failure) {
                report.stoppedByBudget = true
            } else {
                report.failure = failure
            }
        }
        return report
    }

    /// Whether `error` is how a push or pull ends when its budget or its task stopped it.
    private static func isStop(_ error: any Error) -> Bool {
        if let push = error as? PushError { return push.reason == .cancelled }
        return error is SyncBudget.Exhausted || error is CancellationError
    }
}
