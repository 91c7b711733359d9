import OfflineSyncCore
import OfflineSyncStore
/// Repair's first step when the manifest (`CURRENT`) is missing or damaged but journal or snapshot files remain: a
/// new manifest from the files present, so that the rest of repair can keep their valid prefix.
///
/// It names the newest snapshot and every journal from that snapshot's generation on (every journal when there is
/// no snapshot), which is what the manifest named at any step of a compaction: older generations are only left
/// behind by a compaction whose deletions did not happen. When no journal remains, an empty one continues the
/// snapshot's sequence. The damaged manifest is moved aside (`CURRENT.broken`), never deleted. An encrypted store's
/// journal headers name its key: the new manifest then carries a key check of the cipher given, which must name the
/// same key or open its files (without it, or with another, nothing is changed); with no header naming it, the
/// cipher's key must open the files.
enum ManifestRebuild {
    /// Whether `layout`'s directory holds a store at all: a manifest, or journal or snapshot files.
    static func holdsStore(_ layout: StoreLayout, fileSystem: any FileSystem) throws(JournalError) -> Bool {
        if fileSystem.fileExists(layout.manifestPath) { return true }
        let (snapshots, journals) = try generations(layout, fileSystem: fileSystem)
        return !snapshots.isEmpty || !journals.isEmpty
    }

    /// Rebuilds the manifest when it needs it, moving a damaged one aside, with every file call on `files`; the caller
    /// holds the store's lock. Returns what it moved aside, and false when a damaged manifest was all there was: it is
    /// moved aside and the directory holds no store any more (the next open creates an empty one).
    static func rebuildIfNeeded(_ layout: StoreLayout, fileSystem: any FileSystem, files: BlockingFileWork,
                                sealing: JournalSealing? = nil) async throws(JournalError) -> (storeRemains: Bool, report: JournalRepairReport) {
        let found = try await files.run { () throws(JournalError) -> (snapshots: [Int64], journals: [Int64])? in
            do throws(JournalError) {
                _ = try Manifest.read(layout.manifestPath, fileSystem: fileSystem)
                return nil
            } catch {
                guard StoreReading.isDamage(error) else { throw error }
            }
            return try generations(layout, fileSystem: fileSystem)
        }
        guard let (snapshots, journals) = found else { return (true, JournalRepairReport()) }
        guard !snapshots.isEmpty || !journals.isEmpty else {
            return (false, try await files.run { () throws(JournalError) in
                var report = JournalRepairReport()
                try JournalDataSource.moveAside(layout.manifestPath, fileSystem: fileSystem, into: &report)
                return report
            })
        }
        let snapshot = snapshots.max()
        let kept = journals.filter { $0 >= (snapshot ?? 1) }.sorted()
        let encryption = try await encryption(journal: kept.first, snapshot: snapshot, layout, sealing: sealing, fileSystem: fileSystem,
                                              files: files)
        // With no journal left, an empty one continues the snapshot's sequence.
        let base = kept.isEmpty
            ? try await lastSequence(ofSnapshot: snapshot, layout, sealing: encryption == nil ? nil : sealing, fileSystem: fileSystem, files: files)
            : nil
        return (true, try await files.run { () throws(JournalError) in
            var named = kept
            if let base {
                let generation = (journals + snapshots).max().map { $0 + 1 } ?? 1
                try fileSystem.writeNewFile(layout.journalPath(generation),
                                            JournalRecord.headerLine(generation: generation, baseSequence: base, keyIdentifier: encryption?.keyIdentifier))
                named = [generation]
            }
            var report = JournalRepairReport()
            if fileSystem.fileExists(layout.manifestPath) {
                try JournalDataSource.moveAside(layout.manifestPath, fileSystem: fileSystem, into: &report)
            }
            try Manifest(snapshot: snapshot, journals: named, encryption: encryption).write(layout, fileSystem: fileSystem)
            return report
        })
    }

    /// The encryption of the rebuilt manifest. The oldest kept journal's header tells: it names the key, or none for a
    /// plaintext store. When it cannot tell (no journal, or a damaged header), a sealed snapshot means an encrypted
    /// store, and otherwise the caller's `sealing` decides. An encrypted store keeps the key identifier its header
    /// names, with a key check of `sealing`, whose key must open one of the journal's records or the snapshot's
    /// blocks when there are any (with the wrong key every record would read as damage, and repair would move them
    /// aside), unless its identifier is the one a journal header names: then nothing opening is taken for damage.
    /// When no header names the key (a sealed snapshot alone, a damaged header), the key must open something, where a
    /// sealed snapshot or a record whose checksum holds is left to try.
    /// - Throws: ``JournalError/encrypted(directory:keyIdentifier:)`` for sealed files without `sealing`,
    ///   ``JournalError/wrongKey(directory:keyIdentifier:given:)`` when its key opens nothing: nothing is changed.
    private static func encryption(journal: Int64?, snapshot: Int64?, _ layout: StoreLayout, sealing: JournalSealing?,
                                   fileSystem: any FileSystem, files: BlockingFileWork) async throws(JournalError) -> Manifest.Encryption? {
        var header: (key: String?, known: Bool) = (nil, false)
        var tried = false, opens = false
        if let journal {
            let bytes = try await files.run { () throws(JournalError) in try fileSystem.readFile(layout.journalPath(journal)) }
            let lines = bytes.split(separator: 0x0A).map(Array.init)
            if let first = lines.first, case .success(let record) = first.withUnsafeBytes({ JournalRecord.decode($0) }),
               case .header(_, _, let identifier) = record.body {
                header = (identifier, true)
            }
            if let sealing {
                // Without a header, only a record whose checksum holds tells a key that does not open it from damage.
                tried = header.known ? lines.count > 1
                    : lines.dropFirst().contains { line in line.withUnsafeBytes { LineFraming.problem(in: $0) == nil } }
                opens = lines.dropFirst().contains { line in
                    if case .success(let record) = line.withUnsafeBytes({ JournalRecord.decode($0, sealing: sealing) }),
                       case .apply = record.body { return true }
                    return false
                }
            }
        }
        if header.known && header.key == nil { return nil }
        var key = header.key
        if let snapshot {
            let path = layout.snapshotPath(snapshot)
            let prefix = try await files.run { () throws(JournalError) -> [UInt8]? in
                fileSystem.fileExists(path) ? Array(try fileSystem.readFile(path).prefix(SealedSnapshotFile.headerBytes)) : nil
            }
            if let prefix, SealedSnapshotFile.isSealed(prefix) {
                key = key ?? sealing?.keyIdentifier ?? "(unknown)"
                if let sealing, !opens {
                    tried = true
                    opens = await files.run { anyBlockOpens(path, generation: snapshot, sealing: sealing, fileSystem: fileSystem) }
                }
            }
        }
        guard let key = key ?? sealing?.keyIdentifier else { return nil }
        guard let sealing else { throw JournalError.encrypted(directory: layout.directory, keyIdentifier: key) }
        // Only an identifier a journal header names vouches for the key: one taken from `sealing` itself would always match.
        guard opens || !tried || sealing.keyIdentifier == header.key else {
            throw JournalError.wrongKey(directory: layout.directory, keyIdentifier: header.key ?? "(unknown)", given: sealing.keyIdentifier)
        }
        return Manifest.Encryption(keyIdentifier: key, keyCheck: try sealing.keyCheck())
    }

    /// Whether `sealing` opens any block of the sealed snapshot at `path`.
    private static func anyBlockOpens(_ path: String, generation: Int64, sealing: JournalSealing, fileSystem: any FileSystem) -> Bool {
        guard let file = try? fileSystem.open(path, mode: .readOnly) else { return false }
        defer { fileSystem.close(file) }
        guard let size = try? fileSystem.size(file),
              let source = try? SnapshotSource.opening(file, path: path, size: Int(size), generation: generation, sealing: sealing, fileSystem: fileSystem)
        else { return false }
        return stride(from: 0, to: source.count, by: SealedSnapshotFile.blockBytes).contains { (try? source.read($0..<($0 + 1))) != nil }
    }

    /// The generations of the snapshot and journal files in the store's directory.
    private static func generations(_ layout: StoreLayout, fileSystem: any FileSystem) throws(JournalError) -> (snapshots: [Int64], journals: [Int64]) {
        let names = try fileSystem.contentsOfDirectory(layout.directory)
        return (names.compactMap { generation(in: $0, prefix: "snapshot.", suffix: ".json") },
                names.compactMap { generation(in: $0, prefix: "journal.", suffix: ".jsonl") })
    }

    /// The generation in a store file's name (`journal.3.jsonl` → 3), or nil.
    static func generation(in name: String, prefix: String, suffix: String) -> Int64? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        return Int64(name.dropFirst(prefix.count).dropLast(suffix.count)).flatMap { $0 > 0 ? $0 : nil }
    }

    /// The last sequence the snapshot holds (0 without one, or when it is damaged: repair then moves it aside).
    /// - Throws: when the snapshot cannot be read for a reason other than damage (see ``StoreReading/isDamage(_:)``).
    private static func lastSequence(ofSnapshot generation: Int64?, _ layout: StoreLayout, sealing: JournalSealing?,
                                     fileSystem: any FileSystem, files: BlockingFileWork) async throws(JournalError) -> Int64 {
        guard let generation else { return 0 }
        let path = layout.snapshotPath(generation)
        do throws(JournalError) {
            let file = try await files.run { () throws(JournalError) in try fileSystem.open(path, mode: .readOnly) }
            defer { fileSystem.close(file) }
            let source = try await files.run { () throws(JournalError) in
                try SnapshotSource.opening(file, path: path, size: Int(try fileSystem.size(file)), generation: generation,
                                           sealing: sealing, fileSystem: fileSystem)
            }
            // Its blocks are read where they are parsed (``SnapshotSource``).
            return try await SnapshotReader.read(source, path: path).lastSequence
        } catch {
            guard StoreReading.isDamage(error) else { throw error }
            return 0
        }
    }
}
