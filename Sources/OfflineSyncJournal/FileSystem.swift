import OfflineSyncCore
import OfflineSyncStore
/// An open file: its descriptor and its path, for error messages.
struct FileDescriptor: Sendable, Hashable {
    /// The operating system's descriptor.
    let raw: Int32
    /// The path the file was opened with.
    let path: String
}

/// How ``FileSystem/open(_:mode:)`` opens a file.
enum OpenMode: Sendable, Hashable {
    /// Read only; the file must exist.
    case readOnly
    /// Read and write; the file must exist.
    case readWrite
    /// Read and write, created with mode 0600 when missing.
    case createOrOpen
    /// Read and write, created with mode 0600; fails with EEXIST when it exists.
    case createNew
}

/// The journal store's only way to the disk: the seam where tests inject ENOSPC, short writes, EIO and crashes.
///
/// Every method throws ``JournalError/io(operation:path:errno:)`` naming the path. `write` may write fewer
/// bytes than asked (a short write); ``writeAll(_:_:at:)`` loops over it.
protocol FileSystem: Sendable {
    func open(_ path: String, mode: OpenMode) throws(JournalError) -> FileDescriptor
    func close(_ file: FileDescriptor)
    func size(_ file: FileDescriptor) throws(JournalError) -> Int64
    /// Reads up to `count` bytes at `offset` into `buffer`; returns how many were read (0 at the end).
    func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(JournalError) -> Int
    /// Writes some of `bytes` at `offset`; returns how many were written.
    func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(JournalError) -> Int
    /// Makes the file's data durable: `fdatasync` on Linux, `F_FULLFSYNC` (falling back to `fsync`) on Darwin.
    func sync(_ file: FileDescriptor) throws(JournalError)
    func truncate(_ file: FileDescriptor, to length: Int64) throws(JournalError)
    func rename(_ source: String, to destination: String) throws(JournalError)
    func remove(_ path: String) throws(JournalError)
    /// Makes entries created, renamed or removed in the directory durable.
    func syncDirectory(_ path: String) throws(JournalError)
    /// Creates the directory with mode 0700; succeeds when it exists.
    func makeDirectory(_ path: String) throws(JournalError)
    func contentsOfDirectory(_ path: String) throws(JournalError) -> [String]
    func fileExists(_ path: String) -> Bool
    /// Takes an exclusive `flock` without waiting; false when someone else holds it.
    func lockExclusively(_ file: FileDescriptor) throws(JournalError) -> Bool
    /// Releases the `flock`, also for copies of the descriptor a child process may have inherited.
    func unlock(_ file: FileDescriptor)
}

extension FileSystem {
    /// Writes every byte, looping over short writes. A write that makes no progress is reported as ENOSPC.
    func writeAll(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(JournalError) {
        var done = 0
        while done < bytes.count {
            let written = try write(file, UnsafeRawBufferPointer(rebasing: bytes[done...]), at: offset + Int64(done))
            if written <= 0 { throw JournalError.io(operation: "write", path: file.path, errno: 28) }
            done += written
        }
    }

    /// Writes every byte of `bytes` at `offset`.
    func writeAll(_ file: FileDescriptor, _ bytes: [UInt8], at offset: Int64) throws(JournalError) {
        let result: Result<Void, JournalError> = bytes.withUnsafeBytes { raw in
            do throws(JournalError) { try writeAll(file, raw, at: offset) } catch { return .failure(error) }
            return .success(())
        }
        try result.get()
    }

    /// The whole content of the file at `path`.
    func readFile(_ path: String) throws(JournalError) -> [UInt8] {
        let file = try open(path, mode: .readOnly)
        defer { close(file) }
        let size = Int(try size(file))
        var failure: JournalError?
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            var done = 0
            do throws(JournalError) {
                while done < size {
                    let count = try read(file, into: UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[done...]), at: Int64(done))
                    if count == 0 { break }
                    done += count
                }
            } catch {
                failure = error
            }
            initialized = done
        }
        if let failure { throw failure }
        return bytes
    }

    /// Writes `bytes` to a new file at `path` (mode 0600, replacing a stale one) and syncs it.
    func writeNewFile(_ path: String, _ bytes: [UInt8]) throws(JournalError) {
        if fileExists(path) { try remove(path) }
        let file = try open(path, mode: .createNew)
        defer { close(file) }
        try writeAll(file, bytes, at: 0)
        try sync(file)
    }
}
