import OfflineSyncCore
import OfflineSyncStore
extension JournalDataSource {
    /// Rewrites the store under `cipher` (nil: plaintext); a crash leaves it readable with the old or the new one.
    ///
    /// Encrypts a plaintext store, re-keys an encrypted one, or decrypts one. Writes wait meanwhile; the steps, each
    /// durable before the next:
    /// 1. write the snapshot of every item under the new cipher as the next generation's (`snapshot.<g+1>.json`);
    /// 2. create `journal.<g+1>.jsonl`, whose header names the new key;
    /// 3. replace the manifest with one naming only these two and the new key's check: the single step that switches
    ///    the store from the old key to the new;
    /// 4. overwrite every older file with zeros and delete it, as ``discardDeletedData()`` does.
    ///
    /// A crash before step 3 leaves the old manifest: the store opens with the old cipher, and its open deletes the
    /// new files. A crash after it leaves the new manifest: the store opens with the new cipher, and its open
    /// finishes step 4 (an encrypted store's open overwrites every leftover with zeros before deleting it; after
    /// decrypting, the leftovers were sealed and are only deleted).
    /// - Throws: ``JournalError``. A failure before step 3 leaves the store as it was, under the old cipher; a
    ///   failure in step 4 leaves it re-keyed, with older files that ``discardDeletedData()`` or the next open
    ///   removes.
    public func rekey(to cipher: (any StoreCipher)?) async throws {
        let next = try cipher.map { (cipher) throws(JournalError) in try JournalSealing(cipher) }
        await waitForTables()
        try checkWritable()
        while isCompacting {
            await waitUntilIdle()
            try checkWritable()
        }
        isCompacting = true
        defer {
            isCompacting = false
            notifyIdle()
        }
        perform(pipeline.hold())
        defer { perform(pipeline.release()) }
        while pipeline.isRunning || batchBeingWritten { await waitUntilIdle() }
        try checkWritable()
        // The pipeline stays held, so no apply writes to the old journal while it is replaced; reads go on.
        let final = try await rewrite(under: next)
        let (layout, fileSystem) = (layout, fileSystem)
        try await maintenance.run { () throws(JournalError) in
            try Self.discardObsoleteFiles(keeping: final, layout: layout, fileSystem: fileSystem)
        }
    }

    /// Steps 1 to 3 of ``rekey(to:)``, their file work on the store's thread for compactions; switches the store to
    /// the new generation and cipher. Returns the new manifest.
    private func rewrite(under next: JournalSealing?) async throws(JournalError) -> Manifest {
        let generation = manifest.generation + 1
        let base = lastSequence
        let header = JournalRecord.headerLine(generation: generation, baseSequence: base, keyIdentifier: next?.keyIdentifier)
        let final = Manifest(snapshot: generation, journals: [generation], encryption: try next.map { (next) throws(JournalError) in try Manifest.Encryption(next) })
        let (layout, fileSystem, tables) = (layout, fileSystem, tables)
        let written = await maintenance.run { () -> Result<(FileDescriptor, Int64), JournalError> in
            Result { () throws(JournalError) in
                try Self.writeGeneration(generation, of: tables, lastSequence: base, header: header, manifest: final,
                                         sealing: next, layout: layout, fileSystem: fileSystem)
            }
        }
        let file: FileDescriptor, size: Int64
        do throws(JournalError) {
            (file, size) = try written.get()
        } catch {
            if (try? Manifest.read(layout.manifestPath, fileSystem: fileSystem)) == final {
                // The manifest names the new journal but it could not be opened: appends to the old one would be lost.
                failure = error
            }
            throw error
        }
        journal.close()
        journal = OwnedFile(file, fileSystem: fileSystem)
        sealing = next
        manifest = final
        journalExtent = JournalExtent(end: Int64(header.count))
        journalRecords = 0
        journalUpserts = 0
        snapshotBytes = size
        snapshotItems = tables.itemCount
        return final
    }

    /// The file work of steps 1 to 3: the snapshot of `tables` and the journal of `generation` (starting with
    /// `header`), then `final` as the manifest; returns the new journal, open, and the snapshot's size. Blocking: run
    /// it away from the actor.
    private nonisolated static func writeGeneration(_ generation: Int64, of tables: TableSet, lastSequence base: Int64,
                                                    header: [UInt8], manifest final: Manifest, sealing next: JournalSealing?,
                                                    layout: StoreLayout, fileSystem: any FileSystem) throws(JournalError) -> (FileDescriptor, Int64) {
        let snapshotPath = layout.snapshotPath(generation)
        let journalPath = layout.journalPath(generation)
        var size: Int64 = 0
        do {
            let temporary = layout.snapshotTemporaryPath(generation)
            size = try SnapshotWriter.write(tables, generation: generation, lastSequence: base, to: temporary, sealing: next, fileSystem: fileSystem)
            try fileSystem.rename(temporary, to: snapshotPath)
            try fileSystem.writeNewFile(journalPath, header)
            try fileSystem.syncDirectory(layout.directory)
            try final.write(layout, fileSystem: fileSystem)
        } catch {
            // Unless the new manifest is in place (only its directory sync failed), the store stays under the old key.
            if (try? Manifest.read(layout.manifestPath, fileSystem: fileSystem)) != final {
                for path in [layout.snapshotTemporaryPath(generation), snapshotPath, journalPath] where fileSystem.fileExists(path) {
                    try? fileSystem.remove(path)
                }
                throw error
            }
            size = (try? fileSystem.open(snapshotPath, mode: .readOnly)).map { file in
                defer { fileSystem.close(file) }
                return (try? fileSystem.size(file)) ?? 0
            } ?? 0
        }
        return (try fileSystem.open(journalPath, mode: .readWrite), size)
    }
}
