import OfflineSyncCore
import OfflineSyncStore
/// The state of a store after ``Recovery/open(_:fileSystem:indexes:)``: everything the actor needs to serve it.
struct OpenedStore: Sendable {
    var tables: TableSet
    var manifest: Manifest
    /// The newest journal, open for appending at the end of ``journalExtent``.
    var journal: OwnedFile
    var journalExtent: JournalExtent
    var journalRecords: Int
    /// How many items the newest journal's records upserted.
    var journalUpserts: Int
    var lastSequence: Int64
    var snapshotBytes: Int64
    /// How many items the snapshot holds (the journals' changes after it not counted).
    var snapshotItems: Int
    /// When the snapshot is left to load in the background: its lookup and what the journals changed since
    /// (``tables`` then holds only those changes).
    var backgroundLoad: BackgroundLoad?
}

/// Opening a store: create it when new, load the snapshot, replay the journals, cut a torn tail, delete
/// leftovers of interrupted compactions. The caller holds the lock.
enum Recovery {
    /// Opens the store in `layout`, its tables keeping `indexes` (already valid); `sealing` opens an encrypted
    /// store and encrypts a new one. A missing or wrong key is thrown before any file is changed.
    /// With `lazily`, a plaintext snapshot that has its lookup file is not loaded: the store is opened on the
    /// lookup (``OpenedStore/backgroundLoad``), the journals' changes since the snapshot as its tables.
    static func open(_ layout: StoreLayout, fileSystem: any FileSystem, files: BlockingFileWork, indexes: [IndexDefinition],
                     sealing: JournalSealing? = nil, lazily: Bool = false) async throws(JournalError) -> OpenedStore {
        if await !files.run({ fileSystem.fileExists(layout.manifestPath) }) {
            try await create(layout, fileSystem: fileSystem, files: files, sealing: sealing)
        }
        let lookup = lazily && sealing == nil ? await openLookup(layout, fileSystem: fileSystem, files: files) : nil
        var reading = try await StoreReading.read(layout, fileSystem: fileSystem, files: files, collectBatches: true,
                                                  indexes: indexes, sealing: sealing, snapshotLoaded: lookup == nil)
        if let problem = reading.snapshotProblem { throw problem }
        guard let newest = reading.journals.last else {
            throw JournalError.invalidManifest(file: layout.manifestPath, reason: "it names no journal")
        }
        for scan in reading.journals {
            switch scan.problem {
            case .corrupted(let offset, let sequence, let reason)?:
                throw JournalError.corrupted(file: scan.path, offset: offset, sequence: sequence, reason: reason)
            case .unsupportedFormat(let version)?:
                throw JournalError.unsupportedFormat(file: scan.path, version: version)
            case .needsKey(let key)?:
                throw JournalError.encrypted(directory: layout.directory, keyIdentifier: key)
            case .tornTail?, nil:
                continue
            }
        }
        // On the store's thread for file work: cutting a torn tail syncs, and an encrypted store's leftovers are
        // overwritten before they are deleted.
        let manifest = reading.manifest
        let (journal, extent) = try await files.run { () throws(JournalError) -> (FileDescriptor, JournalExtent) in
            let journal = try fileSystem.open(newest.path, mode: .readWrite)
            do throws(JournalError) {
                // Only what a record's `d` vouches for is known durable: the rest may still be in the page cache only.
                var extent = JournalExtent(end: newest.validEnd, allocated: newest.size, synced: newest.durableEnd)
                if newest.problem != nil {
                    extent = JournalExtent(end: try cutTornTail(newest, file: journal, keyIdentifier: manifest.encryption?.keyIdentifier,
                                                                fileSystem: fileSystem))
                }
                try removeLeftovers(layout, manifest: manifest, fileSystem: fileSystem)
                return (journal, extent)
            } catch {
                fileSystem.close(journal)
                throw error
            }
        }
        let owned = OwnedFile(journal, fileSystem: fileSystem)
        // Counted in the newest journal only, as its size is (``OpenedStore/journalExtent``).
        let upserts = newest.batches.reduce(0) { $0 + StoreChange.upsertedItemCount(of: $1) }
        let load = lookup.map { BackgroundLoad(lookup: $0, batches: reading.journals.flatMap(\.batches)) }
        return OpenedStore(tables: try reading.takeTables(indexes: indexes), manifest: reading.manifest, journal: owned, journalExtent: extent,
                           journalRecords: newest.recordCount, journalUpserts: upserts, lastSequence: reading.lastSequence,
                           snapshotBytes: reading.snapshotBytes, snapshotItems: reading.snapshot?.itemCount ?? 0,
                           backgroundLoad: load)
    }

    /// The lookup file of the snapshot the manifest names, checked against the snapshot's size and checksum (its last
    /// line); nil when there is no snapshot, or no usable lookup file: the open then loads the snapshot, and reports
    /// whatever is wrong with it as it always does.
    static func openLookup(_ layout: StoreLayout, fileSystem: any FileSystem, files: BlockingFileWork) async -> SnapshotLookup? {
        await files.run { () -> SnapshotLookup? in
            guard let manifest = try? Manifest.read(layout.manifestPath, fileSystem: fileSystem), manifest.encryption == nil,
                  let generation = manifest.snapshot
            else { return nil }
            let path = layout.snapshotPath(generation)
            guard let descriptor = try? fileSystem.open(path, mode: .readOnly) else { return nil }
            let snapshotFile = OwnedFile(descriptor, fileSystem: fileSystem)
            guard let size = try? fileSystem.size(descriptor),
                  let (_, crc) = try? SnapshotLayout.trailer(SnapshotSource(file: descriptor, path: path, count: Int(size), fileSystem: fileSystem), path: path)
            else { return nil }
            return SnapshotLookup.open(layout.lookupPath(generation), generation: generation, snapshotFile: snapshotFile,
                                       snapshotPath: path, snapshotBytes: Int(size), snapshotCRC: crc, fileSystem: fileSystem)
        }
    }

    /// Creates the files of a new store: journal 1 (empty, base sequence 0) and the manifest naming it.
    /// A crash while creating a store can leave `journal.1.jsonl` without any apply record and no manifest:
    /// nothing was acknowledged yet, so creation starts over. Any other journal or snapshot file (but temporary, lookup
    /// and moved-aside ones) without a manifest is refused rather than overwritten. With `sealing` the store is
    /// encrypted from the start.
    static func create(_ layout: StoreLayout, fileSystem: any FileSystem, files: BlockingFileWork,
                       sealing: JournalSealing?) async throws(JournalError) {
        let path = layout.journalPath(1)
        let leftJournal = try await files.run { () throws(JournalError) -> [UInt8]? in
            let existing = try fileSystem.contentsOfDirectory(layout.directory)
            let firstJournal = StoreLayout.journalName(1)
            // Temporary and lookup files hold nothing a store needs (the open deletes them), and parts a repair moved
            // aside are kept where they are: none of them is overwritten.
            let holdsData = existing.contains { name in
                (name.hasPrefix("journal.") || name.hasPrefix("snapshot.")) && name != firstJournal
                    && !name.hasSuffix(".tmp") && !name.hasSuffix(".lookup") && !name.hasSuffix(".broken")
            }
            if holdsData {
                throw JournalError.invalidManifest(file: layout.manifestPath, reason: "it is missing although journal or snapshot files exist")
            }
            return existing.contains(firstJournal) ? try fileSystem.readFile(path) : nil
        }
        if let leftJournal {
            let scan = await JournalScan.scan(leftJournal, path: path, generation: 1, baseSequence: 0, collectBatches: false,
                                              sealing: sealing)
            guard scan.recordCount == 0 else {
                throw JournalError.invalidManifest(file: layout.manifestPath, reason: "it is missing although \(path) holds records")
            }
        }
        let encryption: Manifest.Encryption?
        if let sealing { encryption = try Manifest.Encryption(sealing) } else { encryption = nil }
        try await files.run { () throws(JournalError) in
            try fileSystem.writeNewFile(path, JournalRecord.headerLine(generation: 1, baseSequence: 0, keyIdentifier: sealing?.keyIdentifier))
            try Manifest(snapshot: nil, journals: [1], encryption: encryption).write(layout, fileSystem: fileSystem)
        }
    }

    /// Truncates the newest journal back to its last valid record (rewriting the header, naming `keyIdentifier`,
    /// when even it is torn) and syncs it; returns the new size.
    static func cutTornTail(_ scan: JournalScan, file: FileDescriptor, keyIdentifier: String?,
                            fileSystem: any FileSystem) throws(JournalError) -> Int64 {
        try fileSystem.truncate(file, to: scan.validEnd)
        var size = scan.validEnd
        if size == 0 {
            let header = JournalRecord.headerLine(generation: scan.generation, baseSequence: scan.lastSequence, keyIdentifier: keyIdentifier)
            try fileSystem.writeAll(file, header, at: 0)
            size = Int64(header.count)
        }
        try fileSystem.sync(file)
        return size
    }

    /// Deletes journal, snapshot and temporary files the manifest does not name (left by an interrupted
    /// compaction, re-key or erase). Files kept aside (`*.broken`) and foreign files stay. In an encrypted store each
    /// is overwritten with zeros first, as ``JournalDataSource/discardDeletedData()`` does: after a re-key that
    /// crashed once it had switched keys, the leftovers hold the items in plaintext or under the old key.
    static func removeLeftovers(_ layout: StoreLayout, manifest: Manifest, fileSystem: any FileSystem) throws(JournalError) {
        let keep = StoreLayout.keptNames(manifest)
        // Best effort: a leftover that cannot be deleted now is deleted by a later open.
        var removed = false
        for name in try fileSystem.contentsOfDirectory(layout.directory) where StoreLayout.isStoreFile(name) && !keep.contains(name) {
            let path = layout.directory + "/" + name
            if manifest.encryption != nil { try? JournalDataSource.overwriteWithZeros(path, fileSystem: fileSystem) }
            removed = (try? fileSystem.remove(path)) != nil || removed
        }
        if removed { try? fileSystem.syncDirectory(layout.directory) }
    }

    /// Creates `path` and any missing parent with mode 0700.
    static func makeDirectory(_ path: String, fileSystem: any FileSystem) throws(JournalError) {
        if fileSystem.fileExists(path) { return }
        var components = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        var missing: [String] = []
        while !components.isEmpty {
            let current = components.joined(separator: "/")
            if current.isEmpty || fileSystem.fileExists(current) { break }
            missing.append(current)
            components.removeLast()
        }
        for directory in missing.reversed() {
            try fileSystem.makeDirectory(directory)
            if let slash = directory.lastIndex(of: "/"), slash != directory.startIndex {
                try fileSystem.syncDirectory(String(directory[..<slash]))
            }
        }
    }
}
