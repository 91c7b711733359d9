import OfflineSyncCore
import OfflineSyncStore
/// How an append to the journal ended.
enum AppendOutcome: Sendable {
    /// Every byte is written (and synced when asked).
    case written
    /// The write failed and the journal was cut back to its previous end: nothing changed, the store is usable.
    case failed(JournalError)
    /// The sync failed; the journal was cut back to its previous end, but what was written earlier without a sync
    /// may be gone from the disk (a failed `fsync` may drop the pages it could not write and report it once), while
    /// the tables still hold it: the store refuses writes until it is reopened.
    case syncFailed(JournalError)
    /// The append failed and the journal could not be cut back and synced: its state on disk is unknown.
    case broken(JournalError)
}

extension JournalDataSource {
    /// Writes `buffer` at `offset` (the journal's current end), followed by `zeros` zero bytes, with one positioned
    /// write, then syncs it when `sync` is set. On any failure it truncates the file back to `offset` and syncs
    /// that, so a failed append never leaves garbage in front of the next one.
    nonisolated static func append(_ buffer: [UInt8], zeros: Int, to file: FileDescriptor, at offset: Int64, sync: Bool,
                                   fileSystem: any FileSystem) -> AppendOutcome {
        var syncing = false
        do {
            if zeros > 0 {
                var padded = [UInt8](repeating: 0, count: buffer.count + zeros)
                buffer.withUnsafeBytes { record in padded.withUnsafeMutableBytes { $0.copyMemory(from: record) } }
                try fileSystem.writeAll(file, padded, at: offset)
            } else {
                try fileSystem.writeAll(file, buffer, at: offset)
            }
            if sync {
                syncing = true
                try fileSystem.sync(file)
            }
            return .written
        } catch {
            do {
                try fileSystem.truncate(file, to: offset)
                try fileSystem.sync(file)
            } catch let restore {
                if restore.code == .io, let code = restore.errno { return .broken(.failed(file: file.path, errno: code)) }
                return .broken(restore)
            }
            return syncing ? .syncFailed(error) : .failed(error)
        }
    }

    /// Appends `buffer` at the journal's end in place, on the actor (``BlockingFileWork/runInPlace(_:)``), as
    /// ``append(_:zeros:to:at:sync:fileSystem:)`` does, and moves the end past it; throws, with nothing changed, when
    /// the write failed.
    func appendInPlace(_ buffer: [UInt8], sync: Bool) throws(JournalError) {
        if let failure { throw failure }
        let (file, offset, fileSystem) = (journal.file, journalExtent.end, fileSystem)
        let zeros = journalExtent.zeros(afterAppending: buffer.count)
        try record(BlockingFileWork.runInPlace { Self.append(buffer, zeros: zeros, to: file, at: offset, sync: sync, fileSystem: fileSystem) })
        journalExtent.appended(buffer.count, zeros: zeros, synced: sync)
    }

    /// ``append(_:zeros:to:at:sync:fileSystem:)`` away from the actor, through the store's ``BlockingFileWork`` for
    /// writes (on the shared threads or the store's own, as ``JournalOptions/writeThread`` says), so that other
    /// applies can queue meanwhile. Moves the journal's end past `buffer` when the write succeeded. One such append
    /// is in flight at a time (the ``CommitPipeline``).
    func appendAway(_ buffer: [UInt8], sync: Bool) async throws(JournalError) {
        let (file, offset, fileSystem) = (journal.file, journalExtent.end, fileSystem)
        let zeros = journalExtent.zeros(afterAppending: buffer.count)
        try record(await writes.run { Self.append(buffer, zeros: zeros, to: file, at: offset, sync: sync, fileSystem: fileSystem) })
        journalExtent.appended(buffer.count, zeros: zeros, synced: sync)
    }

    /// Appends the record `record` makes as ``appendInPlace(_:sync:)`` does, but makes it (a sealed record is sealed
    /// there), writes and syncs it on the own thread of the store's ``BlockingFileWork`` for writes, and meanwhile
    /// applies `changes` (whose records it holds, whose items `packed` holds as packed while the payload was written,
    /// and which hold no `deleteAll`) to the tables on the actor: a large batch then pays for the longer of the two
    /// instead of both. While the actor waits for the write, `batchBeingWritten` holds every other call back
    /// (``waitForTables()``), so no one sees the batch before its record is written; when making or
    /// writing the record failed, the tables take the batch back (``TableSet/revert(_:)``) and the error is thrown:
    /// nothing changed. `entriesAside` holds the index entries built for `changes` (``PreparedUpserts``).
    func appendApplying(_ record: @escaping @Sendable () throws(JournalError) -> [UInt8], sync: Bool,
                        changes: [StoreChange], packed: PackedItems,
                        entriesAside: [Int: AddedIndexEntries]) async throws(JournalError) {
        if let failure { throw failure }
        let (file, extent, fileSystem) = (journal.file, journalExtent, fileSystem)
        batchBeingWritten = true
        defer {
            batchBeingWritten = false
            notifyIdle()
        }
        let write = writes.start { () -> Result<(bytes: Int, zeros: Int, outcome: AppendOutcome), JournalError> in
            Result { () throws(JournalError) in
                let buffer = try record()
                let zeros = extent.zeros(afterAppending: buffer.count)
                return (buffer.count, zeros, Self.append(buffer, zeros: zeros, to: file, at: extent.end, sync: sync,
                                                         fileSystem: fileSystem))
            }
        }
        var reversal: BatchReversal? = BatchReversal()
        tables.apply(changes, packed: packed, recording: &reversal, entriesAside: entriesAside)
        let written: (bytes: Int, zeros: Int, outcome: AppendOutcome)
        do {
            written = try await write.value.get()
            try self.record(written.outcome)
        } catch {
            // The callers pass no `deleteAll`, so a reversal is always there; without one the tables cannot be trusted.
            if let reversal { tables.revert(reversal) } else { failure = error }
            throw error
        }
        journalExtent.appended(written.bytes, zeros: written.zeros, synced: sync)
    }

    /// Turns an append's outcome into a throw; a failed append cut the file back to the journal's end, and one
    /// that could not be cut back, or whose sync failed, leaves the store refusing writes.
    private func record(_ outcome: AppendOutcome) throws(JournalError) {
        switch outcome {
        case .written: return
        case .failed(let error):
            journalExtent.cutBack()
            throw error
        case .syncFailed(let error):
            journalExtent.cutBack()
            try refuseWritesAfterFailedSync(error)
        case .broken(let error):
            failure = error
            throw error
        }
    }
}

extension JournalDataSource {
    /// After a failed sync of the journal: records written earlier without a sync (``Durability/buffered``, deferred
    /// applies) may never reach the disk, whatever a later sync reports, while the tables hold them. Every later
    /// write throws ``JournalError/syncFailed(file:errno:)`` (reads go on) until the store is reopened, which reads
    /// what the disk holds. Throws that error.
    func refuseWritesAfterFailedSync(_ error: JournalError) throws(JournalError) -> Never {
        let refusal = JournalError.syncFailed(file: journal.file.path, errno: error.errno ?? Self.eio)
        if failure == nil { failure = refusal }
        throw failure ?? refusal
    }

    /// `EIO`, for a failed sync that names no errno.
    static var eio: Int32 { 5 }
}
