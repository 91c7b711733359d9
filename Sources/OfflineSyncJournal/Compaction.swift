import OfflineSyncCore
import OfflineSyncStore
extension JournalDataSource {
    /// Writes a new snapshot of every table and starts an empty journal, then deletes the previous generation.
    ///
    /// Steps, each durable before the next (a crash at any step leaves a store that opens with every
    /// acknowledged change):
    /// 1. create `journal.<g+1>.jsonl` with its header and sync it and the directory;
    /// 2. switch the manifest to {snapshot g, journals …, g+1}; new applies go to journal g+1 from here on;
    /// 3. write `snapshot.<g+1>.json.tmp` from a copy of the tables, sync it, rename it into place, sync the directory
    ///    (applies continue meanwhile);
    /// 4. switch the manifest to {snapshot g+1, journals g+1};
    /// 5. delete the files of the older generations.
    /// Every step's file work runs away from the actor, on a thread of the store's own (never
    /// one of Swift's shared threads); applies wait during steps 1 and 2 only. A failure before step 4 leaves the
    /// store as it was, still usable.
    /// - Throws: ``JournalError``.
    public func compact() async throws {
        try await compact(closing: false)
    }

    /// The journal size from which ``close()`` compacts (with automatic compaction on), as SQLite checkpoints its
    /// write-ahead log when the last connection closes: the next open then reads one snapshot, whose items it
    /// keeps as they lie in the file, instead of replaying the journal.
    static let compactionOnCloseBytes: Int64 = 1 << 20

    /// ``compact()``; `closing` lets ``close()`` compact after it has refused further calls. With `discarding`, step 5
    /// overwrites with zeros and deletes every file of the store the new manifest does not name (see
    /// ``discardObsoleteFiles(keeping:layout:fileSystem:)``), and throws when it cannot.
    func compact(closing: Bool, discarding: Bool = false) async throws(JournalError) {
        if !closing { await waitForTables() }
        func check() throws(JournalError) {
            if closing { if let failure { throw failure } } else { try checkWritable() }
        }
        try check()
        while isCompacting {
            await waitUntilIdle()
            try check()
        }
        isCompacting = true
        defer {
            isCompacting = false
            notifyIdle()
        }
        perform(pipeline.hold())
        while pipeline.isRunning || batchBeingWritten { await waitUntilIdle() }
        let frozen: TableSet
        let generation = manifest.generation + 1
        let base = lastSequence
        let previous = manifest
        do {
            defer {
                perform(pipeline.release())
            }
            try check()
            frozen = tables
            try await startGeneration(generation, baseSequence: base)
        }
        let (layout, fileSystem) = (layout, fileSystem)
        let snapshotSize = try await Self.writeSnapshot(frozen, generation: generation, lastSequence: base, sealing: sealing,
                                                        on: maintenance, layout: layout, fileSystem: fileSystem)
        let final = Manifest(snapshot: generation, journals: manifest.journals.filter { $0 >= generation },
                             encryption: manifest.encryption)
        try await maintenance.run { () throws(JournalError) in try final.write(layout, fileSystem: fileSystem) }
        manifest = final
        snapshotBytes = snapshotSize
        snapshotItems = frozen.itemCount
        if discarding {
            return try await maintenance.run { () throws(JournalError) in
                try Self.discardObsoleteFiles(keeping: final, layout: layout, fileSystem: fileSystem)
            }
        }
        let obsolete = previous.journals.filter { !final.journals.contains($0) }.map(layout.journalPath)
            + (previous.snapshot.map { [layout.snapshotPath($0), layout.lookupPath($0)] } ?? [])
        await maintenance.run {
            for path in obsolete { try? fileSystem.remove(path) }
            try? fileSystem.syncDirectory(layout.directory)
        }
    }

    /// Steps 1 and 2, their file work on the store's own thread for compactions: the new journal and the manifest
    /// naming it; switches appends to it. The pipeline is held meanwhile, so no apply writes.
    private func startGeneration(_ generation: Int64, baseSequence: Int64) async throws(JournalError) {
        let path = layout.journalPath(generation)
        let header = JournalRecord.headerLine(generation: generation, baseSequence: baseSequence,
                                              keyIdentifier: manifest.encryption?.keyIdentifier)
        let transitional = Manifest(snapshot: manifest.snapshot, journals: manifest.journals + [generation],
                                    encryption: manifest.encryption)
        let (layout, fileSystem, old) = (layout, fileSystem, journal.file)
        // The zeros written ahead go: earlier versions read them as damage in a journal that is not the newest.
        let trimmedEnd = journalExtent.allocated > journalExtent.end ? journalExtent.end : nil
        let outcome = await maintenance.run { () -> GenerationStart in
            Self.startGeneration(path: path, header: header, manifest: transitional, layout: layout, fileSystem: fileSystem,
                                 oldJournal: old, trimmingTo: trimmedEnd)
        }
        if outcome.trimmed { journalExtent.cutBack() }
        switch outcome.result {
        case .failure(.notStarted(let error)):
            throw error
        case .failure(.unsynced(let error)):
            try refuseWritesAfterFailedSync(error)
        case .failure(.unopened(let error)):
            // The manifest names the new journal but it cannot be opened: appends to the old one would be lost.
            failure = error
            throw error
        case .success(let file):
            journal.close()
            journal = OwnedFile(file, fileSystem: fileSystem)
        }
        journalExtent = JournalExtent(end: Int64(header.count))
        journalRecords = 0
        journalUpserts = 0
        manifest = transitional
    }

    /// How steps 1 and 2 ended: the new journal open, or a failure before the new manifest was in place (nothing
    /// changed) or after (the new journal could not be opened); and whether the old journal's zeros were cut off.
    private struct GenerationStart: Sendable {
        enum Failure: Error {
            case notStarted(JournalError)
            /// The old journal's sync failed: nothing changed, but the store must refuse writes.
            case unsynced(JournalError)
            case unopened(JournalError)
        }
        var result: Result<FileDescriptor, Failure>
        var trimmed: Bool
    }

    /// The file work of steps 1 and 2. Blocking: run it away from the actor.
    private nonisolated static func startGeneration(path: String, header: [UInt8], manifest transitional: Manifest,
                                                    layout: StoreLayout, fileSystem: any FileSystem, oldJournal: FileDescriptor,
                                                    trimmingTo trimmedEnd: Int64?) -> GenerationStart {
        let trimmed = trimmedEnd.map { (try? fileSystem.truncate(oldJournal, to: $0)) != nil } ?? false
        do throws(JournalError) {
            // `.buffered` leaves the old journal unsynced: make it durable before the manifest names a newer one,
            // or a power loss could keep journal g+1 (base sequence) but lose g's tail, which reads as corruption.
            do throws(JournalError) { try fileSystem.sync(oldJournal) } catch {
                return GenerationStart(result: .failure(.unsynced(error)), trimmed: trimmed)
            }
            try fileSystem.writeNewFile(path, header)
            try fileSystem.syncDirectory(layout.directory)
            try transitional.write(layout, fileSystem: fileSystem)
        } catch {
            // Unless the new manifest is in place (only its directory sync failed), the old generation stays.
            if (try? Manifest.read(layout.manifestPath, fileSystem: fileSystem)) != transitional {
                try? fileSystem.remove(path)
                return GenerationStart(result: .failure(.notStarted(error)), trimmed: trimmed)
            }
        }
        do throws(JournalError) {
            return GenerationStart(result: .success(try fileSystem.open(path, mode: .readWrite)), trimmed: trimmed)
        } catch {
            return GenerationStart(result: .failure(.unopened(error)), trimmed: trimmed)
        }
    }

    /// Step 3, away from the actor on `queue`: temporary file (sealed with `sealing` when set), sync, rename, then
    /// a plaintext snapshot's lookup file (``writeLookup(_:lines:generation:snapshotBytes:layout:fileSystem:)``),
    /// directory sync. Returns the snapshot's size.
    nonisolated static func writeSnapshot(_ tables: TableSet, generation: Int64, lastSequence: Int64, sealing: JournalSealing?,
                                          on queue: BlockingFileWork, layout: StoreLayout,
                                          fileSystem: any FileSystem) async throws(JournalError) -> Int64 {
        try await queue.run { () throws(JournalError) -> Int64 in
            let temporary = layout.snapshotTemporaryPath(generation)
            do throws(JournalError) {
                var lines: SnapshotWriter.WrittenLines? = sealing == nil ? SnapshotWriter.WrittenLines() : nil
                let size = try SnapshotWriter.write(tables, generation: generation, lastSequence: lastSequence, to: temporary,
                                                    sealing: sealing, fileSystem: fileSystem, lines: &lines)
                try fileSystem.rename(temporary, to: layout.snapshotPath(generation))
                if let lines {
                    writeLookup(tables, lines: lines, generation: generation, snapshotBytes: Int(size), layout: layout,
                                fileSystem: fileSystem)
                }
                try fileSystem.syncDirectory(layout.directory)
                return size
            } catch {
                try? fileSystem.remove(temporary)
                throw error
            }
        }
    }

    /// Writes the lookup file of the snapshot of `generation` (``SnapshotLookupFile``), whose item lines lie as
    /// `lines` says: temporary file, sync, rename. Best effort: the file only speeds up the next open, which loads the
    /// snapshot first when it is missing, so a failure leaves none and is not an error.
    nonisolated static func writeLookup(_ tables: TableSet, lines: SnapshotWriter.WrittenLines, generation: Int64,
                                        snapshotBytes: Int, layout: StoreLayout, fileSystem: any FileSystem) {
        var described: [(name: String, locations: [SnapshotLookupFile.Location], entries: TableLookupEntries)] = []
        for table in lines.tables {
            guard let entries = tables.lookupEntries(table: table.name, written: table.slots) else { return }
            described.append((table.name, table.locations, entries))
        }
        let bytes = SnapshotLookupFile.bytes(generation: generation, snapshotBytes: snapshotBytes, snapshotCRC: lines.crc,
                                             tables: described)
        let temporary = layout.lookupPath(generation) + ".tmp"
        do throws(JournalError) {
            try fileSystem.writeNewFile(temporary, bytes)
            try fileSystem.rename(temporary, to: layout.lookupPath(generation))
        } catch {
            try? fileSystem.remove(temporary)
        }
    }

    /// Starts a compaction in the background once at least half of what the snapshot and the journal hold is
    /// garbage (items replaced or deleted since they were written), and that garbage is at least
    /// ``JournalOptions/compactionMinimumBytes``. A compaction rewrites every item, so it waits until it frees at
    /// least as many bytes as it writes: a store that only grows (an import) holds no garbage and is not rewritten
    /// while it grows, however long its journal (which then holds each item once, as a snapshot would), while a
    /// store that deleted most of its snapshot's items compacts without waiting for its journal to grow. After
    /// failures it waits for the journal to grow further (doubling each time), so a full disk does not cause a
    /// compaction storm.
    func scheduleAutomaticCompaction() {
        guard options.automaticCompaction, !isCompacting, !compactionScheduled, !isClosed, failure == nil,
              journalSize >= automaticCompactionFloor
        else { return }
        let live = estimatedLiveBytes
        let garbage = snapshotBytes + journalSize - live
        guard garbage >= live, garbage >= options.compactionMinimumBytes else { return }
        compactionScheduled = true
        Task { await self.compactAutomatically() }
    }

    /// What a compaction would write now, estimated from the items held: the last snapshot's size scaled by the items
    /// held against the items it held; without a snapshot of some items, the journal's size scaled by the items held
    /// against the items its records upserted.
    private var estimatedLiveBytes: Int64 {
        let items = Double(tables.itemCount)
        if snapshotItems > 0 { return Int64(Double(snapshotBytes) * items / Double(snapshotItems)) }
        guard journalUpserts > 0 else { return 0 }
        return Int64(Double(journalSize) * min(1, items / Double(journalUpserts)))
    }

    private func compactAutomatically() async {
        compactionScheduled = false
        guard !isCompacting, !isClosed, failure == nil else { return }
        do {
            try await compact()
            automaticCompactionFailures = 0
            automaticCompactionFloor = 0
        } catch {
            lastAutomaticCompactionError = "\(error)"
            automaticCompactionFailures += 1
            let factor = Int64(1) << Int64(min(automaticCompactionFailures, 10))
            automaticCompactionFloor = journalSize + options.compactionMinimumBytes * factor
        }
    }
}
