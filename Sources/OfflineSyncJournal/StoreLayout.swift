import OfflineSyncCore
import OfflineSyncStore
/// The names of the files in a store directory (Docs/JournalFormat.md, "Directory layout").
struct StoreLayout: Sendable {
    /// The store directory, without a trailing slash.
    let directory: String

    /// The lock file, held with `flock` for the store's lifetime.
    var lockPath: String { directory + "/lock" }
    /// The manifest naming the current snapshot and journals.
    var manifestPath: String { directory + "/CURRENT" }
    /// Where a new manifest is written before it is renamed over ``manifestPath``.
    var manifestTemporaryPath: String { directory + "/CURRENT.tmp" }

    /// The journal of `generation`.
    func journalPath(_ generation: Int64) -> String { directory + "/" + Self.journalName(generation) }
    /// The snapshot of `generation`.
    func snapshotPath(_ generation: Int64) -> String { directory + "/" + Self.snapshotName(generation) }
    /// Where the snapshot of `generation` is written before it is renamed into place.
    func snapshotTemporaryPath(_ generation: Int64) -> String { snapshotPath(generation) + ".tmp" }

    /// The lookup file of the snapshot of `generation` (``SnapshotLookupFile``).
    func lookupPath(_ generation: Int64) -> String { directory + "/" + Self.lookupName(generation) }

    static func journalName(_ generation: Int64) -> String { "journal.\(generation).jsonl" }
    static func snapshotName(_ generation: Int64) -> String { "snapshot.\(generation).json" }
    static func lookupName(_ generation: Int64) -> String { "snapshot.\(generation).lookup" }

    /// The files the store keeps under `manifest`: its journals, its snapshot and the snapshot's lookup file.
    static func keptNames(_ manifest: Manifest) -> Set<String> {
        var keep = Set(manifest.journals.map(journalName))
        if let snapshot = manifest.snapshot {
            keep.insert(snapshotName(snapshot))
            keep.insert(lookupName(snapshot))
        }
        return keep
    }

    /// Whether `name` is a file the store writes (journal, snapshot, temporary file), as opposed to files kept
    /// aside (`*.broken`) or foreign files, which the store never deletes.
    static func isStoreFile(_ name: String) -> Bool {
        if name.hasSuffix(".broken") { return false }
        if name.hasSuffix(".tmp") { return true }
        return (name.hasPrefix("journal.") && name.hasSuffix(".jsonl"))
            || (name.hasPrefix("snapshot.") && (name.hasSuffix(".json") || name.hasSuffix(".lookup")))
    }

    init(directory: String) {
        var path = directory
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        self.directory = path
    }
}
