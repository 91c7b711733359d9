#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OfflineSyncStore
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// The directory of an ``AttachmentQueue``: one file per attachment, named by its id, and a `.partial` folder for
/// files being written. A file reaches its name only whole and synced (written in `.partial`, synced, renamed, the
/// directory synced), so a crash leaves a complete file or none; whatever `.partial` holds at open is discarded. The
/// syncs are the journal store's (``AttachmentDurability``), so the files are as durable as the store's records.
struct AttachmentFiles: Sendable {
    let directory: URL
    private let partial: URL
    private let durability: AttachmentDurability

    /// The files of `directory`, created (with the folders above it, mode 0700) when missing, made durable with
    /// `durability`.
    init(directory: URL, durability: AttachmentDurability = .system) throws(AttachmentError) {
        guard directory.isFileURL else { throw AttachmentError.invalidDirectory(directory.absoluteString) }
        self.directory = directory
        self.durability = durability
        partial = directory.appendingPathComponent(".partial", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: partial, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw AttachmentError.file(operation: "create the folder", path: partial.path, reason: "\(error)")
        }
    }

    /// Where attachment `id`'s file is (whether or not it is there).
    func url(of id: String) -> URL { directory.appendingPathComponent(id, isDirectory: false) }

    /// Whether attachment `id`'s file is there; its size in bytes, or nil.
    func size(of id: String) -> Int64? {
        var status = stat()
        guard stat(url(of: id).path, &status) == 0 else { return nil }
        return Int64(status.st_size)
    }

    /// The ids of the files there.
    func ids() throws(AttachmentError) -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }
        } catch {
            throw AttachmentError.file(operation: "list the files of", path: directory.path, reason: "\(error)")
        }
    }

    /// A new path in `.partial` for a file being written.
    func newPartial() -> URL {
        partial.appendingPathComponent(UUID().uuidString.lowercased(), isDirectory: false)
    }

    /// Writes `bytes` to a new partial file, synced; returns it.
    func writePartial(_ bytes: Data) throws(AttachmentError) -> URL {
        let target = newPartial()
        let descriptor = try create(target)
        defer { close(descriptor) }
        let failed = bytes.withUnsafeBytes { raw in Self.writeAll(raw, to: descriptor) }
        if failed { throw Self.failure("write", target) }
        try sync(descriptor, target)
        return target
    }

    /// Copies `file` to a new partial file, synced; returns it and its size.
    func copyPartial(of file: URL) throws(AttachmentError) -> (URL, Int64) {
        guard file.isFileURL else { throw AttachmentError.invalidDirectory(file.absoluteString) }
        let source = open(file.path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw Self.failure("open", file) }
        defer { close(source) }
        let target = newPartial()
        let descriptor = try create(target)
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total: Int64 = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count < 0 { throw Self.failure("read", file) }
            if count == 0 { break }
            let failed = buffer.withUnsafeBytes { Self.writeAll(UnsafeRawBufferPointer(rebasing: $0[..<count]), to: descriptor) }
            if failed { throw Self.failure("write", target) }
            total += Int64(count)
        }
        try sync(descriptor, target)
        return (target, total)
    }

    /// Syncs a partial file another writer wrote (a download); returns its size.
    func syncPartial(_ file: URL) throws(AttachmentError) -> Int64 {
        let descriptor = open(file.path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.failure("open", file) }
        defer { close(descriptor) }
        try sync(descriptor, file)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Self.failure("read the size of", file) }
        return Int64(status.st_size)
    }

    /// Gives the partial file `file` the name of attachment `id`, durably.
    /// - Throws: ``AttachmentError/file(operation:path:reason:)`` when the rename fails, or when the directory sync
    ///   does (the file then has its name, which a power loss may undo).
    func moveIntoPlace(_ file: URL, id: String) throws(AttachmentError) {
        guard rename(file.path, url(of: id).path) == 0 else { throw Self.failure("rename", file) }
        try syncDirectory()
    }

    /// Removes attachment `id`'s file, if there.
    func remove(_ id: String) {
        unlink(url(of: id).path)
    }

    /// Removes a partial file, if there.
    func removePartial(_ file: URL) {
        unlink(file.path)
    }

    /// Removes every partial file: what a crash left half written.
    func discardPartials() throws(AttachmentError) {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: partial.path) } catch {
            throw AttachmentError.file(operation: "list the files of", path: partial.path, reason: "\(error)")
        }
        for name in names { unlink(partial.appendingPathComponent(name).path) }
    }

    /// Removes every file, partial ones too, and syncs the directory.
    /// - Throws: ``AttachmentError/file(operation:path:reason:)`` when the files cannot be listed or the directory
    ///   sync fails.
    func removeAll() throws(AttachmentError) {
        try discardPartials()
        for id in try ids() { remove(id) }
        try syncDirectory()
    }

    private func create(_ file: URL) throws(AttachmentError) -> Int32 {
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.failure("create", file) }
        return descriptor
    }

    /// Makes the data of the open file `descriptor` (of `file`) durable.
    private func sync(_ descriptor: Int32, _ file: URL) throws(AttachmentError) {
        do { try durability.syncData(descriptor) } catch {
            throw AttachmentError.file(operation: "sync", path: file.path,
                                       reason: "\(error.operation) failed: \(String(cString: strerror(error.errno)))")
        }
    }

    /// Makes the entries created, renamed or removed in the directory durable.
    private func syncDirectory() throws(AttachmentError) {
        do { try durability.syncDirectory(directory.path) } catch {
            throw AttachmentError.file(operation: "sync the directory", path: directory.path,
                                       reason: "\(error.operation) failed: \(String(cString: strerror(error.errno)))")
        }
    }

    /// Writes all of `bytes`; returns true when a write failed.
    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if written < 0, errno == EINTR { continue }
            if written <= 0 { return true }
            offset += written
        }
        return false
    }

    private static func failure(_ operation: String, _ file: URL) -> AttachmentError {
        AttachmentError.file(operation: operation, path: file.path, reason: String(cString: strerror(errno)))
    }
}
