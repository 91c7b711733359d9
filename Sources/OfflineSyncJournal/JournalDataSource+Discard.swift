import OfflineSyncCore
import OfflineSyncStore
/// What ``SyncContext/erase()`` needs of the journal store: its table names, and files that keep no byte of what
/// was deleted.
extension JournalDataSource {
    /// The names of the tables that hold at least one item, the engine's `__` tables included. Never touches the disk.
    /// - Throws: ``JournalError/closed`` after ``close()``.
    public func tableNames() async throws -> [String] {
        await waitForTables()
        if isClosed { throw JournalError.closed }
        return tables.tableNames
    }

    /// Removes from the store's files every byte of the items it no longer holds: compacts (a new snapshot of what is
    /// held and an empty journal, crash-safe as ``compact()`` is), then overwrites every other file of the store with
    /// zeros, syncs it and deletes it: older journals and snapshots (zeros written ahead included), temporary files,
    /// and the damaged parts a repair kept aside (`*.broken`). Foreign files stay.
    ///
    /// Deleting is what guarantees that no file of the store holds the bytes; the zeros are a best effort against
    /// reading the freed disk blocks, which a copy-on-write file system (APFS, Btrfs) may keep anyway until reused.
    /// - Throws: ``JournalError``; the store then holds the same items, and a later call finishes the work.
    public func discardDeletedData() async throws {
        try await compact(closing: false, discarding: true)
    }

    /// Overwrites with zeros, syncs and deletes every journal, snapshot, temporary and `*.broken` file of the store in
    /// `layout` that `manifest` does not name, then syncs the directory. Blocking: run it away from the actor.
    nonisolated static func discardObsoleteFiles(keeping manifest: Manifest, layout: StoreLayout,
                                                 fileSystem: any FileSystem) throws(JournalError) {
        let keep = StoreLayout.keptNames(manifest)
        let names = try fileSystem.contentsOfDirectory(layout.directory)
        for name in names where (StoreLayout.isStoreFile(name) || name.hasSuffix(".broken")) && !keep.contains(name) {
            let path = layout.directory + "/" + name
            try overwriteWithZeros(path, fileSystem: fileSystem)
            try fileSystem.remove(path)
        }
        try fileSystem.syncDirectory(layout.directory)
    }

    /// Overwrites the file at `path` with zeros, in place, and syncs it.
    nonisolated static func overwriteWithZeros(_ path: String, fileSystem: any FileSystem) throws(JournalError) {
        let file = try fileSystem.open(path, mode: .readWrite)
        defer { fileSystem.close(file) }
        let size = try fileSystem.size(file)
        let zeros = [UInt8](repeating: 0, count: Int(min(size, 1 << 20)))
        var offset: Int64 = 0
        while offset < size {
            let count = Int(min(Int64(zeros.count), size - offset))
            try fileSystem.writeAll(file, count == zeros.count ? zeros : Array(zeros[0..<count]), at: offset)
            offset += Int64(count)
        }
        try fileSystem.sync(file)
    }
}
