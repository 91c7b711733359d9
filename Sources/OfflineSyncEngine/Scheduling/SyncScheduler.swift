public import OfflineSyncCore
import OfflineSyncStore
/// Syncs a context by itself: after local writes (debounced), on an interval, and when connectivity returns; runs
/// its steps (pushes and pulls) in the declared order; backs off on failures; parks on `.unauthorized` until the
/// authentication provider yields a token or the app asks for a sync again (after signing in); stops cleanly.
///
/// ```swift
/// let scheduler = SyncScheduler(context: context, configuration: .init(steps: [
///     .push,
///     .pull(table: "TodoItem", queryId: "all-todos"),
/// ]), connectivity: NetworkPathConnectivity())
/// await scheduler.start()
/// for await status in scheduler.statusUpdates() { render(status) }
/// ```
///
/// What it does, as a pure value, is `SyncSchedule`'s; the actor only feeds it events and carries out its
/// answers. The clock is injected, so tests run on a clock they advance by hand.
public actor SyncScheduler<C: Clock> where C.Duration == Duration {
    /// One step of a sync.
    public enum Step: Sendable {
        /// Push every queued operation.
        case push
        /// Push the queued operations of these tables.
        case pushTables(Set<String>)
        /// Pull `table` (all of it when `query` is nil); incremental with a query id.
        case pull(table: String, query: Query? = nil, queryId: String? = nil, settings: PullSettings = PullSettings())
    }

    /// What the scheduler syncs and when.
    public struct Configuration: Sendable {
        /// The steps of each sync, in order; a failing step ends the sync.
        public var steps: [Step]
        /// The quiet time after a local write before a sync.
        public var debounce: Duration
        /// The longest a burst of local writes can delay a sync.
        public var maximumDelay: Duration
        /// The time between syncs when nothing else triggers one; nil: none.
        public var interval: Duration?
        /// The wait after a first failure; it doubles with each failure in a row.
        public var initialBackoff: Duration
        /// The longest wait after failures.
        public var maximumBackoff: Duration
        /// How long after a server's first hint (``SyncScheduler/remoteChanged(tables:)``) its tables are pulled: the
        /// hints that come meanwhile join that pull.
        public var hintDelay: Duration

        /// Creates a configuration.
        public init(steps: [Step], debounce: Duration = .seconds(2), maximumDelay: Duration = .seconds(30),
                    interval: Duration? = .seconds(300), initialBackoff: Duration = .seconds(5),
                    maximumBackoff: Duration = .seconds(300), hintDelay: Duration = .seconds(1)) {
            self.steps = steps
            self.debounce = debounce
            self.maximumDelay = maximumDelay
            self.interval = interval
            self.initialBackoff = initialBackoff
            self.maximumBackoff = maximumBackoff
            self.hintDelay = hintDelay
        }
    }

    let context: SyncContext
    let configuration: Configuration
    private let connectivity: (any ConnectivityMonitor)?
    private let authentication: (any AuthenticationProvider)?
    let clock: C
    let origin: C.Instant
    private var schedule: SyncSchedule
    private var loop: Task<Void, Never>?
    private var watchers: [Task<Void, Never>] = []
    private var wake: CheckedContinuation<Void, Never>?
    private var timer: Task<Void, Never>?
    /// The sync or hinted pull the loop runs now, which ``suspend()`` cancels.
    private var current: Task<Void, Never>?

    /// Creates a stopped scheduler of `context` on `clock`.
    /// - Parameters:
    ///   - context: the context whose push and pull it runs.
    ///   - configuration: the steps it runs and when.
    ///   - connectivity: where it learns whether the network is reachable; nil: always reachable.
    ///   - authentication: asked for a new token (`token(refresh: true)`) after each backoff while parked on 401;
    ///     when it yields one, syncing resumes. Nil: parked until ``syncNow()``.
    ///   - clock: the clock it sleeps on.
    public init(context: SyncContext, configuration: Configuration, connectivity: (any ConnectivityMonitor)? = nil,
                authentication: (any AuthenticationProvider)? = nil, clock: C) {
        self.context = context
        self.configuration = configuration
        self.connectivity = connectivity
        self.authentication = authentication
        self.clock = clock
        self.origin = clock.now
        self.schedule = Self.schedule(configuration, asksForCredentials: authentication != nil, start: .zero)
    }

    private static func schedule(_ configuration: Configuration, asksForCredentials: Bool, start: Duration) -> SyncSchedule {
        var schedule = SyncSchedule(timing: timing(configuration), start: start)
        schedule.asksForCredentials = asksForCredentials
        return schedule
    }

    private static func timing(_ configuration: Configuration) -> SyncSchedule.Timing {
        SyncSchedule.Timing(debounce: configuration.debounce, maximumDelay: configuration.maximumDelay,
                            interval: configuration.interval, initialBackoff: configuration.initialBackoff,
                            maximumBackoff: configuration.maximumBackoff, hintDelay: configuration.hintDelay)
    }

    /// Whether the scheduler runs.
    public var isRunning: Bool { loop != nil }
    /// Whether a sync failed as unauthorized and the scheduler waits for ``syncNow()``.
    public var isParked: Bool { schedule.isParked }
    /// Whether the network is reachable, as the connectivity monitor last said.
    public var isReachable: Bool { schedule.isReachable }
    /// Failures in a row.
    public var consecutiveFailures: Int { schedule.failures }
    /// Whether ``suspend()`` was called and ``resume()`` was not since.
    public var isSuspended: Bool { schedule.isSuspended }
    /// The tables a server said changed (``remoteChanged(tables:)``) whose pull has not started yet.
    var hintedTables: Set<String> { schedule.hintedTables }
    /// Whether ``stop()`` was called and waits for a running sync to end.
    var isStopping: Bool { loop?.isCancelled == true }
    /// When the next sync is due, as time on the clock since the scheduler was created; nil: none is.
    var nextSyncDue: Duration? { schedule.due }
    /// How many times the loop has begun to wait (for a time or an event): a test that sends an event waits for a
    /// later wait, and then knows the scheduler has acted on it.
    private(set) var waits = 0
    /// How many waits the loop has begun, when it waits now; nil while it acts.
    var idleWaits: Int? { wake != nil ? waits : nil }
    /// How many times the loop has ended (each ``stop()`` ends one): a test checks that `stop()` waited for it.
    private(set) var loopsEnded = 0

    /// The context's sync status now, then each change (``SyncContext/statusUpdates()``).
    public nonisolated func statusUpdates() -> AsyncStream<SyncStatus> {
        context.statusUpdates()
    }

    /// Starts syncing: a first sync at once, then as the configuration says. Does nothing when running.
    public func start() {
        guard loop == nil else { return }
        let suspended = schedule.isSuspended
        schedule = Self.schedule(configuration, asksForCredentials: authentication != nil, start: elapsed)
        if suspended { schedule.suspend() }
        // Every committed local write, also one collapsed into a queued operation (the queue's length stays).
        let writes = context.localWriteUpdates()
        watchers.append(Task { [weak self] in
            for await _ in writes { await self?.localWrite() }
        })
        if let reachability = connectivity?.reachability() {
            watchers.append(Task { [weak self] in
                for await reachable in reachability { await self?.reachabilityChanged(reachable) }
            })
        }
        loop = Task { await self.run() }
    }

    /// Stops syncing: cancels a running sync (its bookkeeping ends cleanly, as for any cancelled push or pull) and
    /// returns once it has ended, and so has every task of the scheduler: nothing it started runs after. ``start()``
    /// starts again.
    public func stop() async {
        guard let running = loop else { return }
        let stopped = watchers
        watchers.removeAll()
        for watcher in stopped { watcher.cancel() }
        running.cancel()
        wakeUp()
        await running.value
        for watcher in stopped { await watcher.value }
        loop = nil
    }

    /// Syncs as soon as possible: also ends a backoff, and unparks a scheduler parked on `.unauthorized` (call it
    /// after the user signed in again).
    public func syncNow() {
        schedule.syncRequested(at: elapsed)
        wakeUp()
    }

    /// A server said these tables changed (a silent push, a socket message): the pull steps of those tables run
    /// ``Configuration/hintDelay`` after the first such hint, once for all the hints meanwhile; a hint during a
    /// sync or pull of the table makes one more pull after it. A table that no step pulls is ignored. While stopped,
    /// suspended, offline, parked or backing off the hint waits: the next sync pulls every table.
    public func remoteChanged(tables: Set<String>) {
        schedule.remoteChanged(tables.intersection(pulledTables), at: elapsed)
        wakeUp()
    }

    /// Suspends syncing (the app went to the background without a background task): a running sync or hinted pull
    /// is cancelled, as ``stop()`` cancels it, and this returns once it ended; nothing starts until ``resume()``.
    /// Writes, hints and requests meanwhile are kept, and what the suspension cancelled is due again.
    /// ``runOnce(budget:)`` runs while suspended (it is what a background task calls).
    public func suspend() async {
        schedule.suspend()
        guard let current else { return }
        current.cancel()
        await current.value
    }

    /// Resumes syncing after ``suspend()``: what became due meanwhile (writes, the interval, hints, a request, the
    /// sync the suspension cancelled) runs at once.
    public func resume() {
        schedule.resume()
        wakeUp()
    }

    /// The tables that some step pulls.
    private var pulledTables: Set<String> {
        Set(configuration.steps.compactMap { step in
            if case .pull(let table, _, _, _) = step { return table }
            return nil
        })
    }

    /// The time now on the clock, since the scheduler was created.
    var elapsed: Duration { origin.duration(to: clock.now) }

    private func localWrite() {
        schedule.localWrite(at: elapsed)
        wakeUp()
    }

    private func reachabilityChanged(_ reachable: Bool) {
        schedule.reachability(reachable, at: elapsed)
        wakeUp()
    }

    private func run() async {
        while !Task.isCancelled {
            switch schedule.action(at: elapsed) {
            case .sync: await carryOut { await $0.sync() }
            case .pull: await carryOut { await $0.pullHintedTables() }
            case .askForCredentials: await askForCredentials()
            case .wait(let deadline): await waitForEvent(until: deadline)
            case .waitForEvent: await waitForEvent(until: nil)
            }
        }
        loopsEnded += 1
    }

    /// Runs `work` in a task of its own, which ``suspend()`` may cancel without ending the loop, and ``stop()``
    /// cancels with the loop.
    private func carryOut(_ work: @escaping @Sendable (isolated SyncScheduler) async -> Void) async {
        let task = Task { await work(self) }
        current = task
        await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        current = nil
    }

    /// Runs the pull steps of the tables a server said changed, and tells the schedule how they ended.
    private func pullHintedTables() async {
        let tables = schedule.takeHintedTables()
        let outcome: SyncSchedule.Outcome
        do {
            for step in configuration.steps {
                if case .pull(let table, _, _, _) = step, tables.contains(table) { try await run(step) }
            }
            outcome = .succeeded
        } catch {
            outcome = Self.outcome(of: error)
        }
        schedule.syncEnded(outcome, at: elapsed, pulled: tables)
    }

    /// Runs the steps in order and tells the schedule how they ended.
    private func sync() async {
        schedule.syncStarted()
        let outcome: SyncSchedule.Outcome
        do {
            for step in configuration.steps { try await run(step) }
            outcome = .succeeded
        } catch {
            outcome = Self.outcome(of: error)
        }
        schedule.syncEnded(outcome, at: elapsed)
    }

    /// Parked on 401: asks the provider for a new token; with one, syncs at once, else waits longer. Without a
    /// provider there is nothing to ask: it waits for ``syncNow()``.
    private func askForCredentials() async {
        guard let authentication else { return schedule.waitForRequest() }
        do {
            _ = try await authentication.token(refresh: true)
            schedule.syncRequested(at: elapsed)
        } catch {
            schedule.credentialsUnavailable(at: elapsed)
        }
    }

    func run(_ step: Step) async throws {
        switch step {
        case .push: try await context.push()
        case .pushTables(let tables): try await context.push(tables: tables)
        case .pull(let table, let query, let queryId, let settings):
            try await context.table(table).pull(query, queryId: queryId, settings: settings)
        }
    }

    static func outcome(of error: any Error) -> SyncSchedule.Outcome {
        if Task.isCancelled { return .cancelled }
        switch error {
        case let push as PushError where push.reason == .unauthorized: return .unauthorized
        case RemoteError.unauthorized: return .unauthorized
        default: return .failed
        }
    }

    /// Waits until `deadline` on the clock, or until an event (a write, connectivity, a request, stop) wakes it.
    private func waitForEvent(until deadline: Duration?) async {
        await withCheckedContinuation { continuation in
            guard !Task.isCancelled else { return continuation.resume() }
            wake = continuation
            waits += 1
            if let deadline {
                let instant = origin.advanced(by: deadline)
                timer = Task { [clock, weak self] in
                    guard (try? await clock.sleep(until: instant, tolerance: nil)) != nil else { return }
                    await self?.wakeUp()
                }
            }
        }
        timer?.cancel()
        timer = nil
    }

    private func wakeUp() {
        wake?.resume()
        wake = nil
    }
}

extension SyncScheduler where C == ContinuousClock {
    /// Creates a stopped scheduler of `context` on the continuous clock.
    public init(context: SyncContext, configuration: Configuration, connectivity: (any ConnectivityMonitor)? = nil,
                authentication: (any AuthenticationProvider)? = nil) {
        self.init(context: context, configuration: configuration, connectivity: connectivity,
                  authentication: authentication, clock: ContinuousClock())
    }
}
