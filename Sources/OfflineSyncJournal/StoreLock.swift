import OfflineSyncCore
import OfflineSyncStore
/// A descriptor the store owns; closed by ``close()`` or, at the latest, when the owner is released.
///
/// Only the owning ``JournalDataSource`` (an actor) touches it, which is what makes it `Sendable`.
final class OwnedFile: @unchecked Sendable {
    let file: FileDescriptor
    private let fileSystem: any FileSystem
    private let isLock: Bool
    private var isOpen = true

    init(_ file: FileDescriptor, fileSystem: any FileSystem, isLock: Bool = false) {
        self.file = file
        self.fileSystem = fileSystem
        self.isLock = isLock
    }

    /// Closes the descriptor, releasing the lock first when it holds one; later calls do nothing.
    func close() {
        guard isOpen else { return }
        isOpen = false
        if isLock { fileSystem.unlock(file) }
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
        let locked: Bool
        do {
            locked = try fileSystem.lockExclusively(file)
        } catch {
            fileSystem.close(file)
            throw error
        }
        guard locked else {
            fileSystem.close(file)
            throw JournalError.locked(directory: layout.directory)
        }
        return OwnedFile(file, fileSystem: fileSystem, isLock: true)
    }
}
