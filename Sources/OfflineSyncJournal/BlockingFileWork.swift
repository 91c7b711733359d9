import OfflineSyncCore
import OfflineSyncStore
import Dispatch

/// The one way the journal store runs blocking file work (`open`, `pread`, `pwrite`, `fsync`, a rename, a snapshot's
/// writes): every file call of the store is made inside one of its three methods, and ``isRunningFileWork`` tells
/// a test so. Where the work runs:
/// - ``run(_:)``: as the ``Placement`` says, either on a serial dispatch queue (``Placement/ownThread``: one piece at
///   a time, in the order given, on threads that are not the few Swift concurrency shares among every task, so a slow
///   disk holds one of them and never a thread other tasks need; each piece pays a hand-off there and back), or on
///   Swift's shared threads beside the actor (``Placement/concurrencyPool``: a hop within the pool costs less than a
///   hand-off to another thread, group commit's writes, 16 writers on a 2-core VM with a free `fsync`: 44,000
///   against 78,000 writes/s, Docs/PerformanceHistory.md, but a slow disk then holds a shared thread). The caller
///   suspends until it has run, and its actor serves other calls meanwhile.
/// - ``start(_:)``: on the queue's own thread, while the caller does its own work meanwhile (a large batch applied to
///   the tables while its record is written), then awaits the task.
/// - ``runInPlace(_:)``: at once, on the caller's thread, for work cheaper than any hand-off: a small append's
///   `pwrite` on the store's actor under ``JournalWriteThread/shared``, and a snapshot block's read by the task that
///   parses it (reading each block on the queue made W4 take 1.2 to 1.5 times as long).
///
/// A ``JournalDataSource`` has two: one for its journal's writes (placed as ``JournalOptions/writeThread`` says),
/// and one of its own thread for the rest of its file work: the open's files, a compaction's or a rekey's files (a
/// snapshot is written while applies go on) and repair's. No thread ever blocks waiting for another's work.
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

    /// Work named `label` (as debuggers show its queue) that ``run(_:)`` runs as `placement` says.
    init(label: String, placement: Placement = .ownThread) {
        queue = DispatchQueue(label: label)
        self.placement = placement
    }

    /// Whether the caller runs inside the work of a ``BlockingFileWork``: tests check with it that no file call of
    /// the store escapes one.
    @TaskLocal static var isRunningFileWork = false

    /// Runs `work` after the work given before it; suspends until it has run and returns its result.
    func run<Value: Sendable, Failure: Error>(_ work: @escaping @Sendable () throws(Failure) -> Value) async throws(Failure) -> Value {
        let result: Result<Value, Failure>
        switch placement {
        case .concurrencyPool:
            result = await Self.onSharedThreads(work)
        case .ownThread:
            result = await withCheckedContinuation { continuation in
                queue.async { continuation.resume(returning: Self.$isRunningFileWork.withValue(true) { Result(catching: work) }) }
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
                queue.async { continuation.resume(returning: Self.$isRunningFileWork.withValue(true, operation: work)) }
            }
        }
    }

    /// Runs `work` at once on the caller's thread and returns its result: for file work cheaper than a hand-off to
    /// another thread (see the type's description).
    static func runInPlace<Value, Failure: Error>(_ work: () throws(Failure) -> Value) throws(Failure) -> Value {
        try $isRunningFileWork.withValue(true) { Result(catching: work) }.get()
    }

    @concurrent private static func onSharedThreads<Value: Sendable, Failure: Error>(
        _ work: @Sendable () throws(Failure) -> Value) async -> Result<Value, Failure> {
        $isRunningFileWork.withValue(true) { Result(catching: work) }
    }
}
