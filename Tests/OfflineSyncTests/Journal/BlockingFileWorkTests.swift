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
    final class EscapeRecordingFileSystem: ObservedFileSystem, @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: [String] = []

        /// The calls made outside a ``BlockingFileWork``, each as "operation path".
        var escapes: [String] { lock.withLock { recorded } }

        override func observe(_ operation: String, _ path: String, bytes: Int) {
            guard !BlockingFileWork.isRunningFileWork else { return }
            let name = path.split(separator: "/").last.map(String.init) ?? path
            lock.withLock { recorded.append("\(operation) \(name)") }
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

    @Test func noFileCallOfAStoreOpenedBeforeItsSnapshotLoadsEscapes() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var random = SeededRandom(seed: 31)
        var plain = TableSet()
        try await LazyOpenTests.fill(directory, &random, &plain, batches: 6, compactedAfter: 6)
        let fileSystem = EscapeRecordingFileSystem()
        let store = try await JournalDataSource(path: directory.storePath, options: LazyOpenTests.options(lazily: true),
                                                fileSystem: fileSystem)
        _ = try await store.read(table: "R", id: "i1")
        _ = try await store.read(Query(table: "R", filter: Field("a") == 1, orderBy: [.ascending("b")], top: 5))
        try await store.waitUntilLoaded()
        try await store.close()
        #expect(fileSystem.escapes == [])
    }
}

