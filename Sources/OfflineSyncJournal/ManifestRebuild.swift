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
/// same key (without it, or with another, nothing is changed).
enum ManifestRebuild {
    /// Whether `layout`'s directory holds a store at all: a manifest, or journal or snapshot files.
    static func holdsStore(_ layout: StoreLayout, fileSystem: any FileSystem) throws(JournalError) -> Bool {
        if fileSystem.fileExists(layout.manifestPath) { return true }
        let (snapshots, journals) = try generations(layout, fileSystem: fileSystem)
        return !snapshots.isEmpty || !journals.isEmpty
    }

    /// Rebuilds the manifest when it needs it, moving a damaged one aside with `moveAside`; the caller holds the
    /// store's lock. Returns false when a damaged manifest was all there was: it is moved aside and the directory
    /// holds no store any more (the next open creates an empty one).
    static func rebuildIfNeeded(_ layout: StoreLayout, fileSystem: any FileSystem, sealing: JournalSealing? = nil,
                                moveAside: (String) throws(JournalError) -> Void) async throws(JournalError) -> Bool {
        do throws(JournalError) {
            _ = try Manifest.read(layout.manifestPath, fileSystem: fileSystem)
            return true
        } catch {
            guard StoreReading.isDamage(error) else { throw error }
        }
        let (snapshots, journals) = try generations(layout, fileSystem: fileSystem)
        guard !snapshots.isEmpty || !journals.isEmpty else {
            try moveAside(layout.manifestPath)
            return false
        }
        let snapshot = snapshots.max()
        var kept = journals.filter { $0 >= (snapshot ?? 1) }.sorted()
        let encryption = try await encryption(journal: kept.first, snapshot: snapshot, layout, sealing: sealing, fileSystem: fileSystem)
        if kept.isEmpty {
            let generation = (journals + snapshots).max().map { $0 + 1 } ?? 1
            let base = try await lastSequence(ofSnapshot: snapshot, layout, sealing: encryption == nil ? nil : sealing, fileSystem: fileSystem)
            try fileSystem.writeNewFile(layout.journalPath(generation),
                                        JournalRecord.headerLine(generation: generation, baseSequence: base, keyIdentifier: encryption?.keyIdentifier))
            kept = [generation]
        }
        if fileSystem.fileExists(layout.manifestPath) { try moveAside(layout.manifestPath) }
        try Manifest(snapshot: snapshot, journals: kept, encryption: encryption).write(layout, fileSystem: fileSystem)
        return true
    }

    /// The encryption of the rebuilt manifest. The oldest kept journal's header tells: it names the key, or none for a
    /// plaintext store. When it cannot tell (no journal, or a damaged header), a sealed snapshot means an encrypted
    /// store, and otherwise the caller's `sealing` decides. An encrypted store keeps the key identifier its header
    /// names, with a key check of `sealing`, whose key must open one of the journal's records or the snapshot's
    /// blocks when there are any (with the wrong key every record would read as damage, and repair would move them
    /// aside), unless its identifier is the one the header names: then nothing opening is taken for damage.
    /// - Throws: ``JournalError/encrypted(directory:keyIdentifier:)`` for sealed files without `sealing`,
    ///   ``JournalError/wrongKey(directory:keyIdentifier:given:)`` when its key opens nothing: nothing is changed.
    private static func encryption(journal: Int64?, snapshot: Int64?, _ layout: StoreLayout, sealing: JournalSealing?,
                                   fileSystem: any FileSystem) async throws(JournalError) -> Manifest.Encryption? {
        var header: (key: String?, known: Bool) = (nil, false)
        var tried = false, opens = false
        if let journal {
            let lines = try fileSystem.readFile(layout.journalPath(journal)).split(separator: 0x0A).map(Array.init)
            if let first = lines.first, case .success(let record) = first.withUnsafeBytes({ JournalRecord.decode($0) }),
               case .header(_, _, let identifier) = record.body {
                header = (identifier, true)
            }
            if let sealing {
                tried = lines.count > 1
                opens = lines.dropFirst().contains { line in
                    if case .success(let record) = line.withUnsafeBytes({ JournalRecord.decode($0, sealing: sealing) }),
                       case .apply = record.body { return true }
                    return false
                }
            }
        }
        if header.known && header.key == nil { return nil }
        var key = header.key
        if let snapshot, fileSystem.fileExists(layout.snapshotPath(snapshot)) {
            let path = layout.snapshotPath(snapshot)
            let prefix = try fileSystem.readFile(path).prefix(SealedSnapshotFile.headerBytes)
            if SealedSnapshotFile.isSealed(Array(prefix)) {
                key = key ?? sealing?.keyIdentifier ?? "(unknown)"
                if let sealing, !opens {
                    tried = true
                    opens = await anyBlockOpens(path, generation: snapshot, sealing: sealing, fileSystem: fileSystem)
                }
            }
        }
        guard let key = key ?? sealing?.keyIdentifier else { return nil }
        guard let sealing else { throw JournalError.encrypted(directory: layout.directory, keyIdentifier: key) }
        guard opens || !tried || sealing.keyIdentifier == key else {
            throw JournalError.wrongKey(directory: layout.directory, keyIdentifier: key, given: sealing.keyIdentifier)
        }
        return Manifest.Encryption(keyIdentifier: key, keyCheck: try sealing.keyCheck())
    }

    /// Whether `sealing` opens any block of the sealed snapshot at `path`.
    private static func anyBlockOpens(_ path: String, generation: Int64, sealing: JournalSealing, fileSystem: any FileSystem) async -> Bool {
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
                                     fileSystem: any FileSystem) async throws(JournalError) -> Int64 {
        guard let generation else { return 0 }
        let path = layout.snapshotPath(generation)
        do throws(JournalError) {
            let file = try fileSystem.open(path, mode: .readOnly)
            defer { fileSystem.close(file) }
            let source = try SnapshotSource.opening(file, path: path, size: Int(try fileSystem.size(file)), generation: generation,
                                                    sealing: sealing, fileSystem: fileSystem)
            return try await SnapshotReader.read(source, path: path).lastSequence
        } catch {
            guard StoreReading.isDamage(error) else { throw error }
            return 0
        }
    }
}
