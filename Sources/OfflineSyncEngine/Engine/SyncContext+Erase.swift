import OfflineSyncCore
import OfflineSyncStore
extension SyncContext {
    /// Removes every item, queued operation, operation error, delta token and remembered version of every table in
    /// one atomic step; observers then see empty results. Waits for a push or pull in progress to end.
    ///
    /// Use one store per account and call it when the user signs out: nothing of theirs is left, and no queued
    /// change of theirs is ever sent with the next user's credentials. The store is then new to any context (the
    /// operation ids start over, every pull starts from no token); only ``migrationVersion()`` stays, since it
    /// describes the shape of the items the app writes. Once it returns, no file of a ``JournalDataSource`` holds a
    /// byte of the erased items (``SyncContextDataSource/discardDeletedData()``), and the files of every
    /// ``AttachmentQueue`` of the context are removed; a crash during the call leaves
    /// either everything or nothing erased.
    /// - Throws: a data-source error. When the deletion itself fails, nothing was erased; when only discarding the
    ///   deleted bytes fails, everything is erased and calling `erase()` again finishes the work.
    public func erase() async throws {
        try await holding(syncGate) {
            let attachments = liveAttachmentQueues
            for queue in attachments { await queue.stopTransfers() }
            try await transaction { transaction in
                let names = Set(try await dataSource.tableNames() + [EngineTables.operations, EngineTables.errors, EngineTables.config])
                transaction.stage(names.sorted().map { .deleteAll(table: $0, matching: nil) })
                if let version = try await MigrationVersionStore.row(in: dataSource) {
                    transaction.stage([.upsert(table: EngineTables.config, items: [version])])
                }
                // Staged: the history forgets everything once the deletion is committed, as the index and the
                // marks do when they follow its deleteAll of the queue.
                mirror.ownVersions.forgetEverything()
            }
            statusPublisher.update { status in
                status.lastSyncCompleted = nil
                status.lastErrorMessage = nil
            }
            try await dataSource.discardDeletedData()
            for queue in attachments { try await queue.erased() }
        }
    }
}
