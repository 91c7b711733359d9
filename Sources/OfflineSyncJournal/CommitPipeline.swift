import OfflineSyncCore
import OfflineSyncStore
/// The decisions of the journal's write pipeline, as a pure value: applies queue their records, one write (with
/// its sync) is in flight at a time, and under group commit a write carries every record queued before it.
///
/// The store feeds it events (a batch queued, a write finished, a timer fired, the executor's turn came back,
/// compaction holding or releasing writes) and performs the ``Action`` each event returns. It never reads a clock:
/// the time a write took comes in with ``writeFinished(duration:)`` and a wait goes out as ``Action/startTimer(wait:delay:)``,
/// so its tests drive it step by step with exact expectations.
///
/// Commit delay (group commit only): writers resumed by a sync usually apply again at once, so before taking the
/// next group the pipeline waits until as many batches are queued as the last group carried. After a group of one
/// it only gives the executor's turn away once; otherwise it waits until the group fills or a timer of half the
/// last write's duration (at most ``maximumCommitDelay``) ends, so a lone writer is never delayed and a shrinking
/// crowd is delayed by less than a sync.
struct CommitPipeline<Commit: Sendable>: Sendable {
    /// What the store does after an event.
    enum Action: Sendable {
        /// Nothing.
        case none
        /// Write these commits' records with one write (and one sync), then call ``writeFinished(duration:)``.
        case write([Commit])
        /// Give the executor's turn away once (so queued applies can join), then call ``turnReturned()``.
        case yieldTurn
        /// After `delay`, call ``timerFired(wait:)`` with `wait` (a later timer makes an earlier one stale).
        case startTimer(wait: Int, delay: Duration)
        /// No write is in flight or planned: wake whoever waits for the pipeline to drain.
        case becameIdle
    }

    private enum Phase: Equatable {
        case idle
        case writing
        case yielding
        case gathering(wait: Int, wanted: Int)
    }

    /// The longest a group waits for latecomers.
    static var maximumCommitDelay: Duration { .milliseconds(2) }

    /// Whether a write may carry several queued batches (``Durability/grouped``) or exactly one.
    let groupsBatches: Bool
    private var phase = Phase.idle
    private var queued: [Commit] = []
    private var lastGroupSize = 0
    private var lastWriteDuration = Duration.zero
    /// Whether compaction holds new writes back (between ``hold()`` and ``release()``).
    private(set) var isHeld = false
    private var waits = 0

    /// A pipeline with nothing queued; `groupsBatches` as ``groupsBatches`` says.
    init(groupsBatches: Bool) {
        self.groupsBatches = groupsBatches
    }

    /// Whether a write is in flight or the pipeline is deciding on the next one.
    var isRunning: Bool { phase != .idle }

    /// Whether nothing is queued, in flight or about to be written.
    var isDrained: Bool { phase == .idle && queued.isEmpty }

    /// An apply queued `commit`.
    mutating func enqueue(_ commit: Commit) -> Action {
        queued.append(commit)
        switch phase {
        case .idle:
            return isHeld ? .none : takeGroup()
        case .gathering(_, let wanted) where queued.count >= wanted:
            return takeGroup()
        case .gathering, .writing, .yielding:
            return .none
        }
    }

    /// The write of the last ``Action/write(_:)`` ended (successfully or not) after `duration`.
    mutating func writeFinished(duration: Duration) -> Action {
        guard phase == .writing else { return .none }
        lastWriteDuration = duration
        if isHeld || !groupsBatches { return takeGroup() }
        let wanted = max(lastGroupSize, 1)
        if queued.count >= wanted { return takeGroup() }
        if lastGroupSize <= 1 {
            phase = .yielding
            return .yieldTurn
        }
        waits &+= 1
        phase = .gathering(wait: waits, wanted: wanted)
        return .startTimer(wait: waits, delay: min(lastWriteDuration / 2, Self.maximumCommitDelay))
    }

    /// The turn given away by ``Action/yieldTurn`` came back.
    mutating func turnReturned() -> Action {
        guard phase == .yielding else { return .none }
        return takeGroup()
    }

    /// The timer of wait number `wait` ended; stale timers do nothing.
    mutating func timerFired(wait: Int) -> Action {
        guard case .gathering(let current, _) = phase, current == wait else { return .none }
        return takeGroup()
    }

    /// Compaction stops new writes: the write in flight finishes, nothing new starts until ``release()``.
    mutating func hold() -> Action {
        isHeld = true
        switch phase {
        case .gathering, .yielding: return becomeIdle()
        case .idle, .writing: return .none
        }
    }

    /// Compaction is done: queued batches are written.
    mutating func release() -> Action {
        isHeld = false
        return phase == .idle ? takeGroup() : .none
    }

    private mutating func takeGroup() -> Action {
        guard !isHeld, !queued.isEmpty else { return becomeIdle() }
        let group: [Commit]
        if groupsBatches {
            group = queued
            queued = []
        } else {
            group = [queued.removeFirst()]
        }
        lastGroupSize = group.count
        phase = .writing
        return .write(group)
    }

    private mutating func becomeIdle() -> Action {
        let wasRunning = phase != .idle
        phase = .idle
        lastGroupSize = 0
        lastWriteDuration = .zero
        return wasRunning ? .becameIdle : .none
    }
}

extension CommitPipeline.Action: Equatable where Commit: Equatable {}
