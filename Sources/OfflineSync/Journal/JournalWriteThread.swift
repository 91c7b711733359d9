/// Where a ``JournalDataSource`` runs the `pwrite` and `fsync` of its journal appends.
public enum JournalWriteThread: Sendable, Hashable {
    /// In place on the store's actor whenever it can: an apply under ``Durability/always`` or ``Durability/buffered``
    /// writes and syncs without a thread hand-off, so the fastest; but while the disk syncs, it holds one of the few
    /// threads Swift concurrency shares among every task. Group commit's writes, and a record of 64 KiB or more
    /// (written while the actor's thread applies its batch, which then waits for the write), run on the store's
    /// write queue, as under ``dedicated``.
    case shared
    /// Every write on the store's write queue (a serial dispatch queue, whose threads are not Swift's shared ones),
    /// so that a slow disk never holds a thread of the shared pool. Each write pays a hand-off to that queue and
    /// back: on a 2-core Linux VM about 100 µs, which cut single-writer applies by about a third
    /// (Docs/PerformanceHistory.md, "Where the journal writes").
    case dedicated
}
