import OfflineSyncCore
import OfflineSyncStore
/// Where a ``JournalDataSource`` runs the `pwrite` and `fsync` of its journal appends.
public enum JournalWriteThread: Sendable, Hashable {
    /// On the threads Swift concurrency shares among every task: an apply under ``Durability/always`` or
    /// ``Durability/buffered`` writes in place on the store's actor, and group commit's write runs beside it.
    /// No thread hand-off, so the fastest; but while the disk syncs, it holds one of those few threads. (A record of
    /// 64 KiB or more is written on a queue of the store's own while the actor's thread applies its batch, and that
    /// thread then waits for the write.)
    case shared
    /// On a thread of the store's own, so that a slow disk never holds a thread of the shared pool. Each write
    /// pays a hand-off to that thread and back: on a 2-core Linux VM about 100 µs, which cut single-writer
    /// applies by about a third (Docs/PerformanceHistory.md, "Where the journal writes").
    case dedicated
}
