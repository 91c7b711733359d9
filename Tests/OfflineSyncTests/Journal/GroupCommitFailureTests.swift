import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Group commit when a sync fails: every writer of the failed group gets the error, every later write is refused
/// until the store is reopened, and only acknowledged batches exist.
struct GroupCommitFailureTests {
    @Test func aFailedGroupSyncFailsEveryWriterOfThatGroupAndOnlyAcknowledgedBatchesExist() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let store = try await JournalDataSource.open(directory.storePath, durability: .grouped, fileSystem: fileSystem)
        try await store.apply(Sample.batch(0))
        fileSystem.fail(.sync, errno: 5, pathContains: "journal", times: 1)
        let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
            for n in 1...16 { group.addTask { (n, (try? await store.apply(Sample.batch(n))) != nil) } }
            var results: [Int: Bool] = [:]
            for await (n, ok) in group { results[n] = ok }
            return results
        }
        #expect(outcomes.values.contains(false), "the injected sync failure reached some writer")
        for (n, acknowledged) in outcomes { #expect(try await Sample.holds(store, batch: n) == acknowledged, "batch \(n)") }
        await #expect(throws: JournalError.syncFailed(file: directory.storePath + "/journal.1.jsonl", errno: 5)) {
            try await store.apply(Sample.batch(100))
        }
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath)
        for (n, acknowledged) in outcomes { #expect(try await Sample.holds(reopened, batch: n) == acknowledged, "batch \(n) after reopen") }
        #expect(try await !Sample.holds(reopened, batch: 100))
        try await reopened.close()
    }
}
