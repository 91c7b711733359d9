import OfflineSyncCore
import OfflineSyncStore
import Dispatch

/// Where the journal store runs a kind of blocking file work (`pwrite`, `fsync`, a snapshot's writes) away from its
/// actor, as its ``Placement`` says:
/// - ``Placement/ownThread``: on a serial dispatch queue (one piece at a time, in the order given), whose threads are
///   not the few that Swift concurrency shares among every task of the process, so a slow disk holds one of them and
///   never a thread other tasks need. Each piece pays a hand-off to that thread and back.
/// - ``Placement/concurrencyPool``: on Swift's shared threads, beside the actor. A hop within the pool costs less than
///   a hand-off to another thread (group commit's writes, 16 writers on a 2-core VM with a free `fsync`: 44,000
///   against 78,000 writes/s, Docs/PerformanceHistory.md), but a slow disk then holds a shared thread.
///
/// A ``JournalDataSource`` has two: one for its journal's writes (placed as ``JournalOptions/writeThread`` says),
/// and one of its own thread for a compaction's file work (its snapshot is written while applies go on). The caller
/// suspends for the work in one of two ways, and no thread ever blocks waiting for it:
/// - ``run(_:)`` at once, so the actor serves other calls meanwhile;
/// - ``start(_:)`` after it has done its own work meanwhile (a large batch applied to the tables while its record is
///   written).
///
/// Docs/Architecture.md ("The journal store") says which write runs where.
struct BlockingFileWork: Sendable {
    /// Where ``run(_:)`` runs its work.
    enum Placement: Sendable {
        /// On the queue's own thread.
        case ownThread
        /// On Swift's shared threads.
        case concurrencyPool
    }

    private let queue: DispatchQueue
    private let placement: Placement

    /// Work named `label` (as debuggers show its queue) that ``run(_:)`` runs as `placement` says, and whose
    /// own thread runs at `qos`.
    init(label: String, placement: Placement = .ownThread, qos: DispatchQoS = .unspecified) {
        queue = DispatchQueue(label: label, qos: qos)
        self.placement = placement
    }

    /// Runs `work` after the work given before it; suspends until it has run and returns its result.
    func run<Value: Sendable, Failure: Error>(_ work: @escaping @Sendable () throws(Failure) -> Value) async throws(Failure) -> Value {
        let result: Result<Value, Failure>
        switch placement {
        case .concurrencyPool:
            result = await Self.onSharedThreads(work)
        case .ownThread:
            result = await withCheckedContinuation { continuation in
                queue.async { continuation.resume(returning: Result(catching: work)) }
            }
        }
        return try result.get()
    }

    /// Starts `work` on the queue's own thread after the work given before it, whatever the placement; the caller
    /// goes on with its own work, then awaits the task's value.
    func start<Value: Sendable>(_ work: @escaping @Sendable () -> Value) -> Task<Value, Never> {
        let queue = queue
        return Task.detached(priority: Task.currentPriority) {
            await withCheckedContinuation { continuation in
                queue.async { continuation.resume(returning: work()) }
            }
        }
    }

    @concurrent private static func onSharedThreads<Value: Sendable, Failure: Error>(
        _ work: @Sendable () throws(Failure) -> Value) async -> Result<Value, Failure> {
        Result(catching: work)
    }
}
