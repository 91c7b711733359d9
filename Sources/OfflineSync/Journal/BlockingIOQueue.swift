import Dispatch

/// The one way the journal store runs blocking file work away from its actor: a serial dispatch queue, whose threads
/// are not the few that Swift concurrency shares among every task of the process, so a slow disk holds one of them
/// and never a thread other tasks need. Work runs one piece at a time, in the order it was given.
///
/// A ``JournalDataSource`` has two: one for its journal's writes and syncs (group commit's writes, every write under
/// ``JournalWriteThread/dedicated``, and a large batch's write while the actor applies it), one for the snapshot a
/// compaction writes while applies go on. The caller waits in one of two ways:
/// - ``run(_:)`` suspends it, so the actor serves other calls meanwhile;
/// - ``start(_:)`` lets it go on with its own work and then wait without suspending (``QueuedWork/wait()``), for a
///   step that must end inside the actor's turn. The queue never waits for Swift's shared threads, so that wait
///   cannot deadlock.
///
/// Docs/Architecture.md ("The journal store") says where each write runs and what the hand-off costs.
struct BlockingIOQueue: Sendable {
    private let queue: DispatchQueue

    /// A queue named `label` (as debuggers show it) whose work runs at `qos`.
    init(label: String, qos: DispatchQoS = .unspecified) {
        queue = DispatchQueue(label: label, qos: qos)
    }

    /// Runs `work` on the queue after the work given before it; suspends until it has run and returns its result.
    func run<Value: Sendable, Failure: Error>(_ work: @escaping @Sendable () throws(Failure) -> Value) async throws(Failure) -> Value {
        let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(Failure) { continuation.resume(returning: .success(try work())) } catch { continuation.resume(returning: .failure(error)) }
            }
        }
        return try result.get()
    }

    /// Starts `work` on the queue after the work given before it; the caller waits for its result with
    /// ``QueuedWork/wait()``.
    func start<Value: Sendable>(_ work: @escaping @Sendable () -> Value) -> QueuedWork<Value> {
        QueuedWork(on: queue, work)
    }
}
