import OfflineSyncCore
import OfflineSyncStore
/// Repair's first step when the manifest (`CURRENT`) is missing or damaged but journal or snapshot files remain: a
/// new manifest from the files present, so that the rest of repair can keep their valid prefix.
///
/// It names the newest snapshot and every journal from that snapshot's generation on (every journal when there is
/// no snapshot), which is what the manifest named at any step of a compaction: older generations are only left
/// behind by a compaction whose deletions did not happen. When no journal remains, an empty one continues the
/// snapshot's sequence. The damaged manifest is moved aside (`CURRENT.broken`), never deleted.
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
    static func rebuildIfNeeded(_ layout: StoreLayout, fileSystem: any FileSystem,
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
        if kept.isEmpty {
            let generation = (journals + snapshots).max().map { $0 + 1 } ?? 1
            let base = try await lastSequence(ofSnapshot: snapshot, layout, fileSystem: fileSystem)
            try fileSystem.writeNewFile(layout.journalPath(generation), JournalRecord.headerLine(generation: generation, baseSequence: base))
            kept = [generation]
        }
        if fileSystem.fileExists(layout.manifestPath) { try moveAside(layout.manifestPath) }
        try Manifest(snapshot: snapshot, journals: kept).write(layout, fileSystem: fileSystem)
        return true
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
    private static func lastSequence(ofSnapshot generation: Int64?, _ layout: StoreLayout,
                                     fileSystem: any FileSystem) async throws(JournalError) -> Int64 {
        guard let generation else { return 0 }
        let path = layout.snapshotPath(generation)
        do throws(JournalError) {
            return try await SnapshotReader.read(try fileSystem.readFile(path), path: path).lastSequence
        } catch {
            guard StoreReading.isDamage(error) else { throw error }
            return 0
        }
    }
}
