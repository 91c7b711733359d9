import Foundation
@testable import OfflineSyncCore
@testable import OfflineSyncJournal

/// The disk, calling ``observe(_:_:bytes:)`` before each call that may wait for it (every call but closing a
/// descriptor and releasing its lock): subclasses note the calls, or hold some of them.
class ObservedFileSystem: FileSystem, @unchecked Sendable {
    private let disk = POSIXFileSystem()

    /// Called before `operation` on `path` (`bytes` long for a read or a write, else 0).
    func observe(_ operation: String, _ path: String, bytes: Int) {}

    func open(_ path: String, mode: OpenMode) throws(JournalError) -> FileDescriptor {
        observe("open", path, bytes: 0)
        return try disk.open(path, mode: mode)
    }
    func close(_ file: FileDescriptor) { disk.close(file) }
    func size(_ file: FileDescriptor) throws(JournalError) -> Int64 {
        observe("size", file.path, bytes: 0)
        return try disk.size(file)
    }
    func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(JournalError) -> Int {
        observe("read", file.path, bytes: buffer.count)
        return try disk.read(file, into: buffer, at: offset)
    }
    func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(JournalError) -> Int {
        observe("write", file.path, bytes: bytes.count)
        return try disk.write(file, bytes, at: offset)
    }
    func sync(_ file: FileDescriptor) throws(JournalError) {
        observe("sync", file.path, bytes: 0)
        try disk.sync(file)
    }
    func truncate(_ file: FileDescriptor, to length: Int64) throws(JournalError) {
        observe("truncate", file.path, bytes: 0)
        try disk.truncate(file, to: length)
    }
    func rename(_ source: String, to destination: String) throws(JournalError) {
        observe("rename", source, bytes: 0)
        try disk.rename(source, to: destination)
    }
    func remove(_ path: String) throws(JournalError) {
        observe("remove", path, bytes: 0)
        try disk.remove(path)
    }
    func syncDirectory(_ path: String) throws(JournalError) {
        observe("syncDirectory", path, bytes: 0)
        try disk.syncDirectory(path)
    }
    func makeDirectory(_ path: String) throws(JournalError) {
        observe("makeDirectory", path, bytes: 0)
        try disk.makeDirectory(path)
    }
    func contentsOfDirectory(_ path: String) throws(JournalError) -> [String] {
        observe("contentsOfDirectory", path, bytes: 0)
        return try disk.contentsOfDirectory(path)
    }
    func fileExists(_ path: String) -> Bool {
        observe("fileExists", path, bytes: 0)
        return disk.fileExists(path)
    }
    func lockExclusively(_ file: FileDescriptor) throws(JournalError) -> Bool {
        observe("lockExclusively", file.path, bytes: 0)
        return try disk.lockExclusively(file)
    }
    func unlock(_ file: FileDescriptor) { disk.unlock(file) }
}
