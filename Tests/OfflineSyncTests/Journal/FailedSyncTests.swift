import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// A failed sync of the journal ("fsyncgate"): what was written since the last successful sync may be gone from the
/// disk while the store still holds it, so after any failed sync every write path refuses with
/// ``JournalError/syncFailed(file:errno:)`` until the store is reopened, reads go on, and the reopened store holds
/// what the disk holds.
struct FailedSyncTests {
    /// The ways a store writes, each tried once the sync has failed.
    enum WritePath: String, CaseIterable, Sendable {
        case apply, batch, deferred, transaction, compaction
    }

    static func write(_ path: WritePath, to store: JournalDataSource, batch n: Int) async throws {
        switch path {
        case .apply: try await store.apply(Sample.batch(n))
        case .batch: try await store.apply(Sample.batch(n) + Sample.batch(n + 100))
        case .deferred: try await store.applyDeferringDurability(Sample.batch(n))
        case .transaction:
            _ = try await store.transaction { (transaction: inout StoreTransaction) in transaction.stage(Sample.batch(n)) }
        case .compaction: try await store.compact()
        }
    }

    /// Batch 1 synced, batch 2 deferred (unsynced under `.always`), then the sync of batch 3 fails with EIO and
    /// drops what was written since batch 1's sync.
    @Test(arguments: [(Durability.always, JournalWriteThread.shared), (.always, .dedicated), (.grouped, .shared)])
    func aFailedSyncAfterDeferredRecordsRefusesEveryWriteUntilTheStoreIsReopened(durability: Durability,
                                                                                writeThread: JournalWriteThread) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem(keepingSyncedContents: true)
        let store = try await JournalDataSource.open(directory.storePath, durability: durability, fileSystem: fileSystem,
                                                     writeThread: writeThread)
        let refusal = JournalError.syncFailed(file: directory.storePath + "/journal.1.jsonl", errno: 5)
        try await store.apply(Sample.batch(1))
        try await store.applyDeferringDurability(Sample.batch(2))
        fileSystem.failSyncLosingUnsyncedWrites(pathContains: "journal")
        await #expect(throws: refusal) { try await store.apply(Sample.batch(3)) }
        for (offset, path) in WritePath.allCases.enumerated() {
            await #expect(throws: refusal, "\(path) after the failed sync") { try await Self.write(path, to: store, batch: 4 + offset) }
        }
        #expect(refusal.description.contains("reopen the store"))
        #expect(try await Sample.holds(store, batch: 1), "reads go on")
        #expect(try await Sample.holds(store, batch: 2), "reads go on, from memory")
        try await store.close()

        let reopened = try await JournalDataSource.open(directory.storePath)
        #expect(try await Sample.holds(reopened, batch: 1))
        // Under `.always` the deferred batch 2 was never synced, and the failed sync dropped it; `.grouped` synced it.
        #expect(try await Sample.holds(reopened, batch: 2) == (durability == .grouped))
        for n in 3...(4 + WritePath.allCases.count) { #expect(try await !Sample.holds(reopened, batch: n), "batch \(n)") }
        try await reopened.apply(Sample.batch(20))
        try await reopened.close()
    }

    /// The case `JournalWriteFailureTests` had for a failed sync: the failed apply leaves no trace, and the store
    /// refuses later writes instead of accepting them.
    @Test(arguments: [Durability.always, .grouped])
    func aFailedSyncLeavesNoTraceOfItsBatchAndRefusesLaterWrites(durability: Durability) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let store = try await JournalDataSource.open(directory.storePath, durability: durability, fileSystem: fileSystem)
        let refusal = JournalError.syncFailed(file: directory.storePath + "/journal.1.jsonl", errno: 5)
        try await store.apply(Sample.batch(1))
        let sizeBefore = await store.statistics().journalBytes
        fileSystem.fail(.sync, errno: 5, pathContains: "journal")
        await #expect(throws: refusal) { try await store.apply(Sample.batch(2)) }
        #expect(try await !Sample.holds(store, batch: 2), "a failed apply changes nothing")
        #expect(await store.statistics().journalBytes == sizeBefore)
        #expect(try fileBytes(directory.storePath + "/journal.1.jsonl").count == Int(sizeBefore), "the journal is cut back")
        await #expect(throws: refusal) { try await store.apply(Sample.batch(3)) }
        try await store.close()

        let reopened = try await JournalDataSource.open(directory.storePath)
        #expect(try await Sample.holds(reopened, batch: 1))
        #expect(try await !Sample.holds(reopened, batch: 2))
        #expect(try await !Sample.holds(reopened, batch: 3))
        #expect(await reopened.statistics().lastSequence == 1)
        try await reopened.close()
    }

    /// `.buffered` syncs only in a compaction and `close()`: a compaction whose sync of the journal fails refuses
    /// every later write.
    @Test func aBufferedStoreWhoseCompactionSyncFailsRefusesEveryLaterWrite() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem(keepingSyncedContents: true)
        let store = try await JournalDataSource.open(directory.storePath, durability: .buffered, fileSystem: fileSystem)
        let refusal = JournalError.syncFailed(file: directory.storePath + "/journal.1.jsonl", errno: 5)
        try await store.apply(Sample.batch(1))
        try await store.apply(Sample.batch(2))
        fileSystem.failSyncLosingUnsyncedWrites(pathContains: "journal")
        await #expect(throws: refusal) { try await store.compact() }
        for (offset, path) in WritePath.allCases.enumerated() {
            await #expect(throws: refusal, "\(path) after the failed sync") { try await Self.write(path, to: store, batch: 3 + offset) }
        }
        #expect(try await Sample.holds(store, batch: 2), "reads go on")
        try await store.close()

        let reopened = try await JournalDataSource.open(directory.storePath)
        for n in 1...(3 + WritePath.allCases.count) { #expect(try await !Sample.holds(reopened, batch: n), "batch \(n)") }
        try await reopened.close()
    }
}
