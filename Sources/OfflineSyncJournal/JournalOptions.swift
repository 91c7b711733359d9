import OfflineSyncCore
public import OfflineSyncStore
/// Options for opening a ``JournalDataSource``.
///
/// ```swift
/// var options = JournalOptions(durability: .grouped)
/// options.compactionMinimumBytes = 16 << 20
/// let store = try await JournalDataSource(directory: url, options: options)
/// ```
public struct JournalOptions: Sendable {
    /// How durable each `apply` is before it returns; default ``Durability/always``.
    public var durability: Durability
    /// Whether the store compacts by itself once at least half of what its files hold is garbage (items replaced
    /// or deleted since they were written) and that garbage is at least ``compactionMinimumBytes``; default true. A
    /// store that only grows is not rewritten while it grows. ``JournalDataSource/compact()`` works either way.
    public var automaticCompaction: Bool = true
    /// The garbage (bytes of replaced or deleted items in the snapshot and the journal, estimated from the items
    /// held) below which automatic compaction never starts; default 4 MiB.
    public var compactionMinimumBytes: Int64 = 4 << 20
    /// The largest journal record (one `apply`) accepted, in bytes; default 64 MiB. A larger batch throws
    /// ``JournalError/recordTooLarge(bytes:limit:)`` before anything is written.
    public var maximumRecordBytes: Int = 64 << 20
    /// Secondary indexes to keep; default none. They live in memory only, are built at open from the items read
    /// there and kept in step with each `apply`; an invalid definition makes the open throw ``DataSourceError``.
    public var indexes: [IndexDefinition] = []
    /// Where the journal's writes and syncs run; default ``JournalWriteThread/shared``. Choose
    /// ``JournalWriteThread/dedicated`` when a slow disk must never hold a thread other tasks need.
    public var writeThread: JournalWriteThread = .shared
    /// The cipher that seals every byte of items, queued operations, error rows and delta tokens before it reaches
    /// a file (journal records, snapshots, what compaction, repair and erase write); default nil, a plaintext
    /// store. A store created with a cipher must always be opened with one holding the same key: without one, open
    /// throws ``JournalError/encrypted(directory:keyIdentifier:)``, with another key
    /// ``JournalError/wrongKey(directory:keyIdentifier:given:)``, and a plaintext store opened with a cipher throws
    /// ``JournalError/notEncrypted(directory:)``; none of them changes a file. ``JournalDataSource/rekey(to:)``
    /// encrypts, re-keys or decrypts a store.
    public var cipher: (any StoreCipher)?
    /// Whether the open returns before the snapshot is loaded; default false. When true, and the snapshot has its
    /// lookup file (a plaintext store compacted by this version; an encrypted store always loads first), the open
    /// reads the journals since the snapshot and the lookup file's header only, so its cost no longer grows with the
    /// store. Until the snapshot is loaded (in the background), point reads and the queries that one index serves in
    /// their order are answered from the lookup file and the snapshot's lines they need, each line checked against its
    /// checksum; every other call waits for the load. Damage anywhere in the snapshot is then thrown by the calls after
    /// the load (``JournalDataSource/waitUntilLoaded()`` tells at once), not by the open.
    public var loadsSnapshotInBackground = false
    /// Records of at least this many bytes are written and synced on the store's write queue while the batch is
    /// applied to the tables (``JournalDataSource/appendApplying(_:sync:changes:packed:entriesAside:)``); tests lower it
    /// to take that path with small batches.
    var applyWhileWritingBytes = 64 << 10

    /// Options with the given durability and default compaction settings.
    public init(durability: Durability = .always) {
        self.durability = durability
    }
}
