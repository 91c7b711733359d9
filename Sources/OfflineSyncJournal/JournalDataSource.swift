public import OfflineSyncCore
public import OfflineSyncStore
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import Dispatch

/// A durable data source: every item in memory, every `apply` appended as one checksummed JSON line to a
/// journal, and the journal compacted into a plain-JSON snapshot from time to time.
///
/// ```swift
/// let store = try await JournalDataSource(directory: url, options: JournalOptions(durability: .grouped))
/// try await store.apply([.upsert(table: "TodoItem", items: [["id": "1", "text": "milk"]])])
/// let item = try await store.read(table: "TodoItem", id: "1")
/// try await store.close()
/// ```
///
/// - Reads never touch the disk.
/// - `apply` validates the whole batch, writes its record (synced as ``Durability`` says), and only then makes
///   the change visible; when it throws, nothing changed and nothing was acknowledged.
/// - Opening takes an exclusive `flock` on the store's `lock` file; a second open of the same directory, from
///   this process or another, throws ``JournalError/locked(directory:)``. Releasing the store without
///   ``close()`` releases the lock too.
/// - A torn tail left by a crash is cut off silently on open; a damaged record followed by valid ones makes
///   open throw ``JournalError/corrupted(file:offset:sequence:reason:)`` (see ``repair(directory:)``).
///
/// The files are described byte by byte in `Docs/JournalFormat.md`.
public actor JournalDataSource: SyncContextDataSource, TransactionHost, ModelDecodingDataSource {
    let layout: StoreLayout
    let options: JournalOptions
    /// How the store seals what it writes: from ``JournalOptions/cipher`` at open, replaced by ``rekey(to:)``; nil
    /// for a plaintext store.
    var sealing: JournalSealing?
    let fileSystem: any FileSystem
    var tables: TableSet
    /// The reader of typed reads' decodes, reused from one to the next.
    let modelReaders = PackedObjectReaders()
    var lock: OwnedFile?
    var journal: OwnedFile
    /// Where the newest journal's records end, and the zeros written ahead of them.
    var journalExtent: JournalExtent
    var journalRecords: Int
    /// How many items the newest journal's records upserted (counted at open from those replayed): with no
    /// snapshot to scale, it tells how much of the journal is garbage (``scheduleAutomaticCompaction()``).
    var journalUpserts: Int
    var lastSequence: Int64
    var manifest: Manifest
    var snapshotBytes: Int64
    /// How many items the snapshot of `snapshotBytes` holds (read at open, or written by a compaction): with the
    /// items held now, it scales the snapshot's size to an estimate of what a compaction would write
    /// (``scheduleAutomaticCompaction()``).
    var snapshotItems: Int
    /// Set when the journal's state on disk is unknown; every later write throws it.
    var failure: JournalError?
    var isClosed = false
    /// The write pipeline: applies waiting for their record's write, the write in flight, group commit's wait.
    var pipeline: CommitPipeline<PendingCommit>
    /// Where the journal's writes and syncs run when they do not run in place on the actor: on Swift's shared
    /// threads under ``JournalWriteThread/shared`` (a large batch's write apart: see ``BlockingFileWork/start(_:)``),
    /// on a thread of the store's own under ``JournalWriteThread/dedicated``.
    let writes: BlockingFileWork
    /// Where the store's file work other than the journal's appends runs, on a thread of its own: the open's reads
    /// (but the snapshot's blocks), and a compaction's or a rekey's files (the new journal, the snapshot written
    /// while applies go on, the manifests, the old files' removal).
    let maintenance: BlockingFileWork
    var isCompacting = false
    /// Set while a large batch applied to the tables is being written (``appendApplying(_:sync:changes:packed:entriesAside:)``).
    var batchBeingWritten = false
    /// Set while the snapshot loads in the background (``JournalOptions/loadsSnapshotInBackground``).
    var backgroundLoad: BackgroundLoad?
    /// Why the snapshot's load in the background failed: every later call but ``close()`` throws it.
    var loadFailure: JournalError?
    var compactionScheduled = false
    var automaticCompactionFailures = 0
    /// Why the last automatic compaction failed (kept after a later success, for ``statistics()``).
    var lastAutomaticCompactionError: String?
    var automaticCompactionFloor: Int64 = 0
    /// Callers waiting for flushes or a compaction to finish.
    var idleWaiters: [CheckedContinuation<Void, Never>] = []
    /// The transaction holding the store, and the transactions and applies waiting for it.
    var turns = TransactionTurns()

    /// Opens (creating if needed) the store in `directory`: loads the snapshot, replays the journal,
    /// repairs a torn tail, and takes an exclusive lock. A directory the store creates gets mode 0700, files 0600.
    /// - Throws: ``JournalError/locked(directory:)`` when the store is open elsewhere,
    ///   ``JournalError/corrupted(file:offset:sequence:reason:)`` for damage in the middle of a journal, and the
    ///   other ``JournalError`` cases for unreadable files.
    public init(directory: URL, options: JournalOptions = JournalOptions()) async throws {
        guard directory.isFileURL else {
            throw JournalError.io(operation: "open a store at a URL that is not a file URL", path: directory.absoluteString, errno: 22)
        }
        try await self.init(path: directory.path(percentEncoded: false), options: options, fileSystem: POSIXFileSystem())
    }

    /// Opens the store at `path` through `fileSystem` (the seam tests use to inject faults).
    init(path: String, options: JournalOptions, fileSystem: any FileSystem) async throws(JournalError) {
        for definition in options.indexes {
            do { try definition.validate() } catch { throw JournalError.invalidIndex(error) }
        }
        let sealing = try options.cipher.map { (cipher) throws(JournalError) in try JournalSealing(cipher) }
        let layout = StoreLayout(directory: path)
        let maintenance = BlockingFileWork(label: "OfflineSync.JournalDataSource.maintenance")
        let lock = try await maintenance.run { () throws(JournalError) in
            try Recovery.makeDirectory(layout.directory, fileSystem: fileSystem)
            return try StoreLock.acquire(layout, fileSystem: fileSystem)
        }
        let opened = try await Recovery.open(layout, fileSystem: fileSystem, files: maintenance, indexes: options.indexes,
                                             sealing: sealing, lazily: options.loadsSnapshotInBackground)
        self.maintenance = maintenance
        self.layout = layout
        self.options = options
        self.sealing = sealing
        self.fileSystem = fileSystem
        self.lock = lock
        self.tables = opened.tables
        self.journal = opened.journal
        self.journalExtent = opened.journalExtent
        self.journalRecords = opened.journalRecords
        self.journalUpserts = opened.journalUpserts
        self.lastSequence = opened.lastSequence
        self.manifest = opened.manifest
        self.snapshotBytes = opened.snapshotBytes
        self.snapshotItems = opened.snapshotItems
        self.pipeline = CommitPipeline(groupsBatches: options.durability == .grouped)
        self.writes = BlockingFileWork(label: "OfflineSync.JournalDataSource.writes",
                                      placement: options.writeThread == .shared ? .concurrencyPool : .ownThread)
        self.backgroundLoad = opened.backgroundLoad
        if opened.backgroundLoad != nil { Task { await self.loadInBackground() } }
    }

    /// The item with `id` (matched case-insensitively) in `table`, or nil. Never touches the disk.
    /// - Throws: ``JournalError/closed`` after ``close()``; ``DataSourceError`` for an invalid table name.
    public func read(table: String, id: String) async throws -> JSONObject? {
        if backgroundLoad != nil, !isClosed, (try? StoreChange.validateTable(table)) != nil, let found = readBeforeLoad(table: table, id: id) {
            return found
        }
        await waitForTables()
        try checkReadable()
        try StoreChange.validateTable(table)
        return tables.item(table: table, id: id)
    }

    /// ``read(table:id:)``, decoded as `Model` straight from the item's packed form. Never touches the disk.
    package func readModel<Model: Decodable & Sendable>(_ type: Model.Type, table: String, id: String) async throws -> Model? {
        await waitForTables()
        try checkReadable()
        try StoreChange.validateTable(table)
        return try tables.model(Model.self, table: table, id: id, reusing: modelReaders)
    }

    /// ``read(_:)``, each item decoded as `Model`. Never touches the disk.
    package func readModels<Model: Decodable & Sendable>(_ type: Model.Type, _ query: Query) async throws -> [Model] {
        await waitForTables()
        try checkReadable()
        tables.foldIndexes(of: query.table)
        return try tables.models(Model.self, query, reusing: modelReaders)
    }

    /// How ``read(_:)`` answers `query`: the index it walks, or a scan, and why. Never touches the disk.
    /// - Throws: ``JournalError/closed`` after ``close()``; ``DataSourceError`` for an invalid query.
    public func explain(_ query: Query) async throws -> QueryPlan {
        await waitForTables()
        try checkReadable()
        tables.foldIndexes(of: query.table)
        return try tables.explain(query)
    }

    /// The items matching `query`, with the local query rules. Never touches the disk.
    /// - Throws: ``JournalError/closed`` after ``close()``; ``DataSourceError`` for an invalid query.
    public func read(_ query: Query) async throws -> QueryResult {
        if backgroundLoad != nil, !isClosed, (try? StoreChange.validateTable(query.table)) != nil, let answer = answerBeforeLoad(query) {
            return answer
        }
        await waitForTables()
        try checkReadable()
        tables.foldIndexes(of: query.table)
        return try tables.read(query)
    }

    /// Validates the whole batch, writes it as one journal record made durable as ``JournalOptions/durability``
    /// says, then applies all of it. When it throws, nothing changed.
    /// - Throws: ``DataSourceError`` for an invalid batch; ``JournalError`` when writing fails (the journal is cut
    ///   back to its last good record, so later applies can succeed once the cause is gone; after a failed sync,
    ///   though, every later write throws ``JournalError/syncFailed(file:errno:)`` until the store is reopened).
    public func apply(_ changes: [StoreChange]) async throws {
        try await apply(changes, sync: syncs(deferringDurability: false))
    }

    /// Applies the changes as ``apply(_:)`` does, but under ``Durability/always`` without waiting for `fsync`: the
    /// record is written at once (so a process crash keeps it), and the next synced apply's `fsync`, a compaction or
    /// ``close()`` makes it durable, since records are only ever appended. Under `.grouped` it joins a group as any
    /// apply does.
    public func applyDeferringDurability(_ changes: [StoreChange]) async throws {
        try await apply(changes, sync: syncs(deferringDurability: true))
    }

    /// Whether an apply waits for `fsync`: never under `.buffered`; under `.always` unless its durability is
    /// deferred; under `.grouped` always, since it joins a group.
    func syncs(deferringDurability: Bool) -> Bool {
        deferringDurability ? options.durability == .grouped : options.durability != .buffered
    }

    /// Applies the batch; `holdsTurn` for the transaction holding the store, every other apply waits for it.
    func apply(_ changes: [StoreChange], sync: Bool, holdsTurn: Bool = false) async throws {
        await waitForTables()
        if !holdsTurn { await waitWhileATransactionHolds() }
        try checkWritable()
        // The batch is checked while its record is written (`JournalPayload`); one that resolves a filter first is
        // checked before it waits for the pipeline.
        if changes.contains(where: \.hasFilter) { try TableSet.validate(changes) }
        guard !changes.isEmpty else { return }
        try await commit(changes, sync: sync, holdsTurn: holdsTurn)
    }

    /// Waits for writes and compaction in progress, compacts a journal of 1 MiB or more (when
    /// ``JournalOptions/automaticCompaction`` is on, so that the next open reads one snapshot), cuts off the zeros
    /// written ahead of the journal's records, syncs what ``Durability/buffered`` and deferred applies wrote, then
    /// closes the journal and releases the lock. A failed compaction here loses nothing: the journal still holds
    /// every change.
    /// Every later call except `close()` throws ``JournalError/closed``; a second `close()` does nothing.
    public func close() async throws {
        if isClosed { return }
        isClosed = true
        while !pipeline.isDrained || isCompacting || batchBeingWritten || backgroundLoad != nil { await waitUntilIdle() }
        if options.automaticCompaction, failure == nil, journalRecords > 0, journalSize >= Self.compactionOnCloseBytes {
            try? await compact(closing: true)
        }
        defer {
            journal.close()
            lock?.close()
            lock = nil
        }
        guard failure == nil else { return }
        let (file, fileSystem) = (journal.file, fileSystem)
        let trimmedEnd = journalExtent.allocated > journalExtent.end ? journalExtent.end : nil
        let promised = journalExtent.hasUnsyncedBytes
        try await writes.run { () throws(JournalError) in
            // Zeros written ahead are cut off (best effort: they are free space to the next open).
            let trimmed = trimmedEnd.map { (try? fileSystem.truncate(file, to: $0)) != nil } ?? false
            if promised {
                // What `.buffered` and deferred applies were promised: durable once close returns.
                try fileSystem.sync(file)
            } else if trimmed {
                try? fileSystem.sync(file)
            }
        }
    }

    /// The length of the newest journal's records in bytes.
    var journalSize: Int64 { journalExtent.end }

    /// Counters describing the store's files and tables.
    public func statistics() async -> JournalStatistics {
        await waitForTables()
        var counts: [String: Int] = [:]
        for name in tables.tableNames { counts[name] = tables.count(table: name) }
        return JournalStatistics(generation: manifest.generation, journalBytes: journalSize, snapshotBytes: snapshotBytes,
                                 journalRecords: journalRecords, lastSequence: lastSequence, tables: counts,
                                 failedAutomaticCompactions: automaticCompactionFailures,
                                 lastAutomaticCompactionError: lastAutomaticCompactionError)
    }

    // MARK: - Shared steps

    func checkWritable() throws(JournalError) {
        try checkReadable()
        if let failure { throw failure }
    }

    /// Throws ``JournalError/recordTooLarge(bytes:limit:)`` when a record of a payload of `payloadBytes` bytes would
    /// pass ``JournalOptions/maximumRecordBytes``.
    func checkSize(payloadBytes: Int) throws(JournalError) {
        let estimate = sealing == nil ? payloadBytes + JournalRecord.envelopeBytes : JournalRecord.sealedRecordBytes(payloadBytes: payloadBytes)
        if estimate > options.maximumRecordBytes {
            throw JournalError.recordTooLarge(bytes: estimate, limit: options.maximumRecordBytes)
        }
    }

    /// Replaces each `deleteAll` with a filter by the `delete` of the ids it matches at its place in the batch,
    /// so the journal records effects, not filters.
    func resolveFilters(_ changes: [StoreChange]) -> [StoreChange] {
        guard changes.contains(where: \.hasFilter) else { return changes }
        var scratch = tables
        var resolved: [StoreChange] = []
        for change in changes {
            var effective = change
            if case .deleteAll(let table, let filter?) = change {
                let ids = scratch.items(table: table).filter { filter.matches($0) }
                    .compactMap { $0["id"]?.stringValue }
                effective = .delete(table: table, ids: ids)
            }
            scratch.apply([effective])
            resolved.append(effective)
        }
        return resolved
    }

    func waitUntilIdle() async {
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    func notifyIdle() {
        let waiters = idleWaiters
        idleWaiters = []
        for waiter in waiters { waiter.resume() }
    }
}

/// Counters describing a ``JournalDataSource``'s files and tables.
public struct JournalStatistics: Sendable, Hashable {
    /// The current generation (that of the journal receiving new records).
    public var generation: Int64
    /// The size of the current journal in bytes.
    public var journalBytes: Int64
    /// The size of the current snapshot in bytes (0 when there is none).
    public var snapshotBytes: Int64
    /// The apply records in the current journal.
    public var journalRecords: Int
    /// The sequence number of the last record written.
    public var lastSequence: Int64
    /// Item counts per table (tables with items only), including the engine's `__` tables.
    public var tables: [String: Int]
    /// Automatic compactions that failed in a row (0 after one succeeds). The journal keeps every change
    /// meanwhile; the next attempt waits until it has grown further.
    public var failedAutomaticCompactions: Int = 0
    /// Why the last automatic compaction failed, if one ever did in this session (nil otherwise).
    public var lastAutomaticCompactionError: String?
}
