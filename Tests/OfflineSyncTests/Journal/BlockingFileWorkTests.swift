import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal

/// ``BlockingFileWork`` is the journal store's one way to block on the disk: every file call a store makes, from its
/// open to its close, runs inside one of its methods, whatever the store does and wherever its writes run. Closing a
/// descriptor and releasing its lock are not counted: they wait for no disk, and a descriptor a store drops is closed
/// wherever it is released.
struct BlockingFileWorkTests {
    /// The disk, noting each call made outside a ``BlockingFileWork``.
    final class EscapeRecordingFileSystem: FileSystem, @unchecked Sendable {
        private let disk = POSIXFileSystem()
        private let lock = NSLock()
        private var recorded: [String] = []

        /// The calls made outside a ``BlockingFileWork``, each as "operation path".
        var escapes: [String] { lock.withLock { recorded } }

        private func note(_ operation: String, _ path: String) {
            guard !BlockingFileWork.isRunningFileWork else { return }
            let name = path.split(separator: "/").last.map(String.init) ?? path
            lock.withLock { recorded.append("\(operation) \(name)") }
        }

        func open(_ path: String, mode: OpenMode) throws(JournalError) -> FileDescriptor {
            note("open", path)
            return try disk.open(path, mode: mode)
        }
        func close(_ file: FileDescriptor) {
            disk.close(file)
        }
        func size(_ file: FileDescriptor) throws(JournalError) -> Int64 {
            note("size", file.path)
            return try disk.size(file)
        }
        func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(JournalError) -> Int {
            note("read", file.path)
            return try disk.read(file, into: buffer, at: offset)
        }
        func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(JournalError) -> Int {
            note("write", file.path)
            return try disk.write(file, bytes, at: offset)
        }
        func sync(_ file: FileDescriptor) throws(JournalError) {
            note("sync", file.path)
            try disk.sync(file)
        }
        func truncate(_ file: FileDescriptor, to length: Int64) throws(JournalError) {
            note("truncate", file.path)
            try disk.truncate(file, to: length)
        }
        func rename(_ source: String, to destination: String) throws(JournalError) {
            note("rename", source)
            try disk.rename(source, to: destination)
        }
        func remove(_ path: String) throws(JournalError) {
            note("remove", path)
            try disk.remove(path)
        }
        func syncDirectory(_ path: String) throws(JournalError) {
            note("syncDirectory", path)
            try disk.syncDirectory(path)
        }
        func makeDirectory(_ path: String) throws(JournalError) {
            note("makeDirectory", path)
            try disk.makeDirectory(path)
        }
        func contentsOfDirectory(_ path: String) throws(JournalError) -> [String] {
            note("contentsOfDirectory", path)
            return try disk.contentsOfDirectory(path)
        }
        func fileExists(_ path: String) -> Bool {
            note("fileExists", path)
            return disk.fileExists(path)
        }
        func lockExclusively(_ file: FileDescriptor) throws(JournalError) -> Bool {
            note("lockExclusively", file.path)
            return try disk.lockExclusively(file)
        }
        func unlock(_ file: FileDescriptor) {
            disk.unlock(file)
        }
    }

    /// Items of about `bytes` in all, in one upsert: past ``JournalOptions/applyWhileWritingBytes`` they are applied
    /// while their record is written.
    private static func largeBatch(_ n: Int, bytes: Int) -> [StoreChange] {
        let text = String(repeating: "x", count: 1_000)
        return [.upsert(table: "T", items: (0..<(bytes / 1_000)).map { Sample.item("large-\(n)-\($0)", Int64($0), text: text) })]
    }

    @Test(arguments: [JournalWriteThread.shared, .dedicated], [Durability.always, .grouped, .buffered])
    func noFileCallOfAStoreEscapesItsBlockingFileWork(writeThread: JournalWriteThread, durability: Durability) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = EscapeRecordingFileSystem()
        for round in 0..<2 {
            // The second round opens a store with a snapshot and a journal, and compacts it at close.
            let store = try await JournalDataSource.open(directory.storePath, durability: durability, fileSystem: fileSystem,
                                                         writeThread: writeThread)
            try await store.apply(Sample.batch(round))
            try await store.apply(Self.largeBatch(round, bytes: 200_000))
            try await store.transaction { transaction in
                let large = try await transaction.read(table: "T", id: "large-\(round)-0")
                #expect(large != nil)
                transaction.stage([.delete(table: "T", ids: ["large-\(round)-0"])])
            }
            try await store.compact()
            try await store.apply(Sample.batch(10 + round))
            try await store.discardDeletedData()
            try await store.close()
        }
        let store = try await JournalDataSource.open(directory.storePath, fileSystem: fileSystem)
        #expect(try await Sample.holds(store, batch: 11))
        #expect(try await store.read(table: "T", id: "large-1-0") == nil)
        try await store.close()
        #expect(fileSystem.escapes == [])
    }

    @Test func noFileCallOfAnEncryptedStoreOrItsRekeyEscapes() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = EscapeRecordingFileSystem()
        let store = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher, fileSystem: fileSystem)
        try await store.apply(Sample.batch(1))
        try await store.apply(Self.largeBatch(1, bytes: 200_000))
        try await store.compact()
        try await store.rekey(to: EncryptedStore.otherCipher)
        try await store.apply(Sample.batch(2))
        try await store.close()
        let reopened = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.otherCipher, fileSystem: fileSystem)
        #expect(try await Sample.holds(reopened, batch: 2))
        try await reopened.close()
        #expect(fileSystem.escapes == [])
    }

    @Test func noFileCallOfVerifyRepairOrTheOpenAfterThemEscapes() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = EscapeRecordingFileSystem()
        let store = try await JournalDataSource.open(directory.storePath, fileSystem: fileSystem)
        for n in 0..<3 { try await store.apply(Sample.batch(n)) }
        try await store.close()
        let journal = directory.storePath + "/journal.1.jsonl"
        let handle = try #require(FileHandle(forWritingAtPath: journal))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"torn".utf8))
        try handle.close()

        #expect(try await !JournalDataSource.verify(path: directory.storePath, fileSystem: fileSystem).isSound)
        try FileManager.default.removeItem(atPath: directory.storePath + "/CURRENT")
        let report = try await JournalDataSource.repair(path: directory.storePath, fileSystem: fileSystem)
        #expect(report.movedAside.count == 1, "the torn tail")
        let reopened = try await JournalDataSource.open(directory.storePath, fileSystem: fileSystem)
        #expect(try await Sample.holds(reopened, batch: 2))
        try await reopened.close()
        #expect(fileSystem.escapes == [])
    }
}
