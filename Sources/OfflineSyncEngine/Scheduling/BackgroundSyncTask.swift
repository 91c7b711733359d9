#if canImport(BackgroundTasks) && (os(iOS) || os(tvOS) || os(visionOS))
import BackgroundTasks
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Runs a scheduler's ``SyncScheduler/runOnce(budget:)`` in a `BGAppRefreshTask`: registers the task's launch
/// handler, ends each task with success or failure, stops a run the system expires (its cancellation stops it at a
/// request boundary), and asks for the next task. All the logic is `runOnce`'s; this only connects it to the system.
///
/// ```swift
/// // In application(_:didFinishLaunchingWithOptions:), before it returns; the identifier is listed under
/// // BGTaskSchedulerPermittedIdentifiers in Info.plist.
/// let refresh = BackgroundSyncTask(identifier: "com.example.todo.sync")
/// refresh.register(scheduler)
/// try? refresh.scheduleNext()
/// ```
public struct BackgroundSyncTask: Sendable {
    /// The task identifier, as Info.plist permits it.
    public let identifier: String
    /// The time each run may take: the system grants about 30 s, so the default leaves a margin.
    public var budget: Duration
    /// The earliest time after a run at which the next one may begin (the system decides when it does).
    public var interval: Duration

    /// A background refresh of `identifier` that runs within `budget`, at most every `interval`.
    public init(identifier: String, budget: Duration = .seconds(25), interval: Duration = .seconds(15 * 60)) {
        self.identifier = identifier
        self.budget = budget
        self.interval = interval
    }

    /// Registers the launch handler: each task asks for the next one, then runs `scheduler.runOnce(budget:)` and
    /// ends with success unless a step failed. Call before the app finishes launching. Returns false when the
    /// system refused the identifier (not permitted in Info.plist, or registered already).
    @discardableResult
    public func register(_ scheduler: SyncScheduler<ContinuousClock>) -> Bool {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) { task in
            nonisolated(unsafe) let task = task
            try? scheduleNext()
            let run = Task {
                let report = await scheduler.runOnce(budget: budget)
                task.setTaskCompleted(success: report.failure == nil)
            }
            task.expirationHandler = { run.cancel() }
        }
    }

    /// Asks the system for the next refresh, no earlier than ``interval`` from now.
    /// - Throws: `BGTaskScheduler.Error` when the system refuses the request.
    public func scheduleNext() throws {
        let request = BGAppRefreshTaskRequest(identifier: identifier)
        let (seconds, attoseconds) = interval.components
        request.earliestBeginDate = Date(timeIntervalSinceNow: Double(seconds) + Double(attoseconds) / 1e18)
        try BGTaskScheduler.shared.submit(request)
    }
}
#endif
