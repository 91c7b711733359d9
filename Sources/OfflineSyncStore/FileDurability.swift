#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// How a file's bytes and a directory's entries are made durable on this platform: the one flush that the journal
/// store and the attachment files share, so that both survive a power loss alike.
///
/// A file's data: `fdatasync` on Linux; `F_FULLFSYNC` on Darwin (which asks the drive to empty its cache too), falling
/// back to `fsync` on a file system that refuses it. A directory's entries (a file created, renamed or removed in it):
/// the directory opened and synced the same way. Every failure is reported, never ignored.
package enum FileDurability {
    /// A sync that failed: the call that failed and the `errno` it set.
    package struct Failure: Error, Sendable, Hashable {
        /// The call that failed: `fdatasync`, `fsync`, `open directory` or `fsync directory`.
        package let operation: String
        /// The `errno` it set.
        package let errno: Int32

        /// A failure of `operation` with `errno`.
        package init(operation: String, errno: Int32) {
            self.operation = operation
            self.errno = errno
        }
    }

    /// Makes the data of the open file `descriptor` durable.
    /// - Parameter descriptor: a descriptor open for writing.
    /// - Throws: ``Failure`` naming `fdatasync` (Linux) or `fsync` (Darwin) and its `errno`.
    package static func syncData(of descriptor: Int32) throws(Failure) {
        #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return }
        guard fsync(descriptor) == 0 else { throw Failure(operation: "fsync", errno: errno) }
        #else
        guard fdatasync(descriptor) == 0 else { throw Failure(operation: "fdatasync", errno: errno) }
        #endif
    }

    /// Makes the entries created, renamed or removed in the directory at `path` durable.
    /// - Parameter path: the directory's path.
    /// - Throws: ``Failure`` naming `open directory` or `fsync directory` and its `errno`.
    package static func syncDirectory(_ path: String) throws(Failure) {
        let descriptor = systemOpen(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard descriptor >= 0 else { throw Failure(operation: "open directory", errno: errno) }
        defer { _ = systemClose(descriptor) }
        #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return }
        #endif
        guard fsync(descriptor) == 0 else { throw Failure(operation: "fsync directory", errno: errno) }
    }

    private static func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
        #if canImport(Glibc)
        return Glibc.open(path, flags, mode)
        #else
        return Darwin.open(path, flags, mode)
        #endif
    }

    private static func systemClose(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
        return Glibc.close(descriptor)
        #else
        return Darwin.close(descriptor)
        #endif
    }
}
