import OfflineSyncCore
import OfflineSyncStore
/// When ``SyncScheduler`` syncs, as a pure value: it takes events (a local write, connectivity, a request, the end
/// of a sync) with the time they happened, and answers what to do next. Times are offsets on the scheduler's clock.
///
/// - A local write makes a sync due `debounce` after the last write, but never later than `maximumDelay` after the
///   first write of a burst.
/// - A sync that ends well makes the next one due `interval` later (none when `interval` is nil).
/// - A sync that fails makes the next one due after a backoff that doubles with each failure in a row, from
///   `initialBackoff` up to `maximumBackoff`.
/// - A sync that fails as unauthorized parks the schedule: nothing runs until a sync is requested, or, when an
///   authentication provider can be asked (`asksForCredentials`), until it yields a token: it is asked after the
///   backoff, again and again. Connectivity regained changes neither: it neither unparks nor shortens the backoff.
/// - A sync requested while a sync runs is kept: whatever the running sync's outcome, the requested one runs as soon
///   as it ends (unparked, with no backoff).
/// - While offline nothing runs; connectivity regained makes a sync due at once (when not parked).
/// - A server's hint that tables changed makes a pull of those tables due `hintDelay` after the first hint; the hints
///   that come meanwhile join that pull, and a sync that starts takes them all (it pulls every table). A hint during
///   a sync or a pull makes one more pull due after it. Hints wait while parked or backing off: the next sync takes
///   them.
/// - While suspended nothing runs; events are kept, and a sync or pull that suspending cancelled is due again, so
///   that resuming catches up.
struct SyncSchedule: Sendable, Hashable {
    /// The timing rules.
    struct Timing: Sendable, Hashable {
        var debounce: Duration
        var maximumDelay: Duration
        var interval: Duration?
        var initialBackoff: Duration
        var maximumBackoff: Duration
        var hintDelay: Duration
    }

    /// What the scheduler does next.
    enum Action: Sendable, Hashable {
        /// Sync now.
        case sync
        /// Wait until this time, or until the next event.
        case wait(until: Duration)
        /// Wait for the next event.
        case waitForEvent
        /// Parked: ask the authentication provider for a token now.
        case askForCredentials
        /// Pull these tables, which a server said changed (``takeHintedTables()`` takes them).
        case pull(Set<String>)
    }

    let timing: Timing
    /// Whether a parked schedule asks an authentication provider for a token after each backoff.
    var asksForCredentials = false
    private(set) var isReachable = true
    private(set) var isParked = false
    private(set) var isSyncing = false
    private(set) var isSuspended = false
    /// The tables a server said changed, not pulled since.
    private(set) var hintedTables: Set<String> = []
    /// When the pull of ``hintedTables`` is due.
    private var hintDue: Duration?
    /// Failures in a row.
    private(set) var failures = 0
    /// When the sync that local writes made due is due.
    private var writeDue: Duration?
    /// When the sync that a timer (interval, backoff) or a request made due is due.
    private var timerDue: Duration?
    /// When the first local write of the current burst happened.
    private var burstStart: Duration?
    /// Whether a sync was requested while a sync ran: its end must not overwrite the request.
    private var requestedDuringSync = false

    /// A schedule whose first sync is due at `start`.
    init(timing: Timing, start: Duration) {
        self.timing = timing
        self.timerDue = start
    }

    /// When the next sync is due; nil: none is.
    var due: Duration? {
        [writeDue, timerDue].compactMap { $0 }.min()
    }

    /// What to do at `now`.
    func action(at now: Duration) -> Action {
        guard isReachable, !isSyncing, !isSuspended else { return .waitForEvent }
        if let due, due <= now { return isParked ? .askForCredentials : .sync }
        // Parked or backing off, the hints wait for the sync that ends it.
        let hint = isParked || failures > 0 ? nil : hintDue
        if let hint, hint <= now { return .pull(hintedTables) }
        guard let next = [due, hint].compactMap({ $0 }).min() else { return .waitForEvent }
        return .wait(until: next)
    }

    /// A server said `tables` changed, at `now`.
    mutating func remoteChanged(_ tables: Set<String>, at now: Duration) {
        guard !tables.isEmpty else { return }
        hintedTables.formUnion(tables)
        if hintDue == nil { hintDue = now + timing.hintDelay }
    }

    /// A pull of the hinted tables starts: it takes them; hints from now on make another pull due.
    mutating func takeHintedTables() -> Set<String> {
        isSyncing = true
        defer {
            hintedTables = []
            hintDue = nil
        }
        return hintedTables
    }

    /// Nothing starts until ``resume()``.
    mutating func suspend() {
        isSuspended = true
    }

    /// Things start again; what is due runs.
    mutating func resume() {
        isSuspended = false
    }

    /// The provider gave no token at `now`: ask again after a longer backoff.
    mutating func credentialsUnavailable(at now: Duration) {
        failures += 1
        timerDue = now + backoff(afterFailures: failures)
    }

    /// A local write happened. During a backoff it changes nothing: the backoff's sync takes it.
    mutating func localWrite(at now: Duration) {
        guard failures == 0, !isParked else { return }
        let start = burstStart ?? now
        burstStart = start
        writeDue = min(now + timing.debounce, start + timing.maximumDelay)
    }

    /// Connectivity changed; regaining it makes a sync due at once, unless parked: a parked schedule waits for a
    /// request, or for its provider after the backoff, online or not.
    mutating func reachability(_ reachable: Bool, at now: Duration) {
        if reachable, !isReachable, !isParked { timerDue = now }
        isReachable = reachable
    }

    /// The app asked for a sync now (also after signing in again: it unparks the schedule and ends a backoff).
    /// During a sync it is kept for the sync's end.
    mutating func syncRequested(at now: Duration) {
        if isSyncing { requestedDuringSync = true }
        isParked = false
        failures = 0
        timerDue = now
    }

    /// A sync starts: it takes every write made so far.
    mutating func syncStarted() {
        isSyncing = true
        burstStart = nil
        writeDue = nil
        timerDue = nil
        hintedTables = []
        hintDue = nil
    }

    /// How a sync ended.
    enum Outcome: Sendable, Hashable { case succeeded, failed, unauthorized, cancelled }

    /// Parked without an authentication provider to ask: nothing is due until a sync is requested.
    mutating func waitForRequest() {
        timerDue = nil
    }

    /// A sync ended at `now`, or with `pulled`, the pull of those hinted tables. Writes made during a sync that ended
    /// well keep the sync they made due; a sync requested during it runs at once, whatever the outcome (a stop's
    /// cancellation aside). A pull that ended well changes no timer; one that failed backs off as a sync does. What
    /// suspending cancelled is due again.
    mutating func syncEnded(_ outcome: Outcome, at now: Duration, pulled: Set<String>? = nil) {
        isSyncing = false
        defer {
            if requestedDuringSync, outcome != .cancelled { syncRequested(at: now) }
            requestedDuringSync = false
        }
        switch outcome {
        case .succeeded where pulled != nil:
            failures = 0
        case .succeeded:
            failures = 0
            timerDue = timing.interval.map { now + $0 }
        case .failed:
            failures += 1
            writeDue = nil
            burstStart = nil
            timerDue = now + backoff(afterFailures: failures)
        case .unauthorized:
            failures += 1
            isParked = true
            writeDue = nil
            burstStart = nil
            timerDue = asksForCredentials ? now + backoff(afterFailures: failures) : nil
        case .cancelled:
            guard isSuspended else { break }
            if let pulled {
                remoteChanged(pulled, at: now)
                hintDue = now
            } else {
                timerDue = now
            }
        }
    }

    /// The wait after `failures` failures in a row: `initialBackoff` doubled `failures - 1` times, at most
    /// `maximumBackoff`.
    func backoff(afterFailures failures: Int) -> Duration {
        var delay = timing.initialBackoff
        for _ in 1..<max(1, failures) where delay < timing.maximumBackoff { delay *= 2 }
        return min(delay, timing.maximumBackoff)
    }
}
