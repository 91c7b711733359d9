/// A descriptor the store owns; closed by ``close()`` or, at the latest, when the owner is released.
///
/// Only the owning ``JournalDataSource`` (an actor) touches it, which is what makes it `Sendable`.
final class OwnedFile: @unchecked Sendable {
    let file: FileDescriptor
    private let fileSystem: any FileSystem
    private var isOpen = true

    init(_ file: FileDescriptor, fileSystem: any FileSystem) {
        self.file = file
        self.fileSystem = fileSystem
    }

    /// Closes the descriptor; later calls do nothing.
    func close() {
        guard isOpen else { return }
        isOpen = false
        fileSystem.close(file)
    }

    deinit { close() }
}

/// The store's exclusive lock: `flock(LOCK_EX | LOCK_NB)` on the `LOCK` file, held through a descriptor kept
/// open for the store's lifetime. `flock` locks belong to the open file description, so a second open in the
/// same process conflicts too.
enum StoreLock {
    /// Takes the lock of the store in `layout`, creating the lock file (mode 0600) when missing.
    /// - Throws: ``JournalError/locked(directory:)`` at once when it is held, or an I/O error.
    static func acquire(_ layout: StoreLayout, fileSystem: any FileSystem) throws(JournalError) -> OwnedFile {
        let file = try fileSystem.open(layout.lockPath, mode: .createOrOpen)
        let owned = OwnedFile(file, fileSystem: fileSystem)
        guard try fileSystem.lockExclusively(file) else {
            owned.close()
            throw JournalError.locked(directory: layout.directory)
        }
        return owned
    }
}
