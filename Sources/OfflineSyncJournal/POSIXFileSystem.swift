import OfflineSyncCore
import OfflineSyncStore
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// The production ``FileSystem``: POSIX calls, retrying on EINTR.
struct POSIXFileSystem: FileSystem {
    private func failure(_ operation: String, _ path: String) -> JournalError {
        JournalError.io(operation: operation, path: path, errno: errno)
    }

    func open(_ path: String, mode: OpenMode) throws(JournalError) -> FileDescriptor {
        let flags: Int32
        switch mode {
        case .readOnly: flags = O_RDONLY
        case .readWrite: flags = O_RDWR
        case .createOrOpen: flags = O_RDWR | O_CREAT
        case .createNew: flags = O_RDWR | O_CREAT | O_EXCL
        }
        while true {
            let descriptor = systemOpen(path, flags | O_CLOEXEC, 0o600)
            if descriptor >= 0 { return FileDescriptor(raw: descriptor, path: path) }
            if errno != EINTR { throw failure("open", path) }
        }
    }

    func close(_ file: FileDescriptor) {
        _ = systemClose(file.raw)
    }

    func size(_ file: FileDescriptor) throws(JournalError) -> Int64 {
        var status = stat()
        guard fstat(file.raw, &status) == 0 else { throw failure("fstat", file.path) }
        return Int64(status.st_size)
    }

    func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(JournalError) -> Int {
        while true {
            let count = pread(file.raw, buffer.baseAddress, buffer.count, off_t(offset))
            if count >= 0 { return count }
            if errno != EINTR { throw failure("read", file.path) }
        }
    }

    func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(JournalError) -> Int {
        while true {
            let count = pwrite(file.raw, bytes.baseAddress, bytes.count, off_t(offset))
            if count >= 0 { return count }
            if errno != EINTR { throw failure("write", file.path) }
        }
    }

    func sync(_ file: FileDescriptor) throws(JournalError) {
        do { try FileDurability.syncData(of: file.raw) } catch {
            throw JournalError.io(operation: error.operation, path: file.path, errno: error.errno)
        }
    }

    func truncate(_ file: FileDescriptor, to length: Int64) throws(JournalError) {
        while ftruncate(file.raw, off_t(length)) != 0 {
            if errno != EINTR { throw failure("ftruncate", file.path) }
        }
    }

    func rename(_ source: String, to destination: String) throws(JournalError) {
        guard systemRename(source, destination) == 0 else { throw failure("rename to \(destination)", source) }
    }

    func remove(_ path: String) throws(JournalError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw failure("unlink", path) }
    }

    func syncDirectory(_ path: String) throws(JournalError) {
        do { try FileDurability.syncDirectory(path) } catch {
            throw JournalError.io(operation: error.operation, path: path, errno: error.errno)
        }
    }

    func makeDirectory(_ path: String) throws(JournalError) {
        if mkdir(path, 0o700) == 0 || errno == EEXIST { return }
        throw failure("mkdir", path)
    }

    func contentsOfDirectory(_ path: String) throws(JournalError) -> [String] {
        guard let directory = opendir(path) else { throw failure("opendir", path) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    func fileExists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }

    func lockExclusively(_ file: FileDescriptor) throws(JournalError) -> Bool {
        while flock(file.raw, LOCK_EX | LOCK_NB) != 0 {
            if errno == EWOULDBLOCK { return false }
            if errno != EINTR { throw failure("flock", file.path) }
        }
        return true
    }

    func unlock(_ file: FileDescriptor) {
        _ = flock(file.raw, LOCK_UN)
    }
}

private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    #if canImport(Glibc)
    return Glibc.open(path, flags, mode)
    #else
    return Darwin.open(path, flags, mode)
    #endif
}

private func systemClose(_ descriptor: Int32) -> Int32 {
    #if canImport(Glibc)
    return Glibc.close(descriptor)
    #else
    return Darwin.close(descriptor)
    #endif
}

private func systemRename(_ source: String, _ destination: String) -> Int32 {
    #if canImport(Glibc)
    return Glibc.rename(source, destination)
    #else
    return Darwin.rename(source, destination)
    #endif
}
