/// How an append to the journal ended.
enum AppendOutcome: Sendable {
    /// Every byte is written (and synced when asked).
    case written
    /// The append failed and the journal was cut back to its previous end: nothing changed, the store is usable.
    case failed(JournalError)
    /// The append failed and the journal could not be cut back and synced: its state on disk is unknown.
    case broken(JournalError)
}

extension JournalDataSource {
    /// Writes `buffer` at `offset` (the journal's current end) with one positioned write, then syncs it when
    /// `sync` is set. On any failure it truncates the file back to `offset` and syncs that, so a failed append
    /// never leaves garbage in front of the next one.
    nonisolated static func append(_ buffer: [UInt8], to file: FileDescriptor, at offset: Int64, sync: Bool,
                                   fileSystem: any FileSystem) -> AppendOutcome {
        do {
            try fileSystem.writeAll(file, buffer, at: offset)
            if sync { try fileSystem.sync(file) }
            return .written
        } catch {
            do {
                try fileSystem.truncate(file, to: offset)
                try fileSystem.sync(file)
            } catch let restore {
                if restore.code == .io, let code = restore.errno { return .broken(.failed(file: file.path, errno: code)) }
                return .broken(restore)
            }
            return .failed(error)
        }
    }

    /// ``append(_:to:at:sync:fileSystem:)`` away from the actor, so that other applies can queue meanwhile: on the
    /// store's own thread (``JournalWriteThread/dedicated``) or else on the shared pool.
    func appendAway(_ buffer: [UInt8], sync: Bool) async -> AppendOutcome {
        let file = journal.file
        let offset = journalSize
        let fileSystem = fileSystem
        guard let ioThread else {
            return await Self.appendInBackground(buffer, to: file, at: offset, sync: sync, fileSystem: fileSystem)
        }
        return await ioThread.run { Self.append(buffer, to: file, at: offset, sync: sync, fileSystem: fileSystem) }
    }

    @concurrent private nonisolated static func appendInBackground(_ buffer: [UInt8], to file: FileDescriptor, at offset: Int64,
                                                                   sync: Bool, fileSystem: any FileSystem) async -> AppendOutcome {
        append(buffer, to: file, at: offset, sync: sync, fileSystem: fileSystem)
    }
}
