import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Failures injected through the file-system seam: nothing acknowledged is lost, later applies succeed (after a
/// failed write; a failed sync refuses later writes: ``FailedSyncTests``).
struct JournalWriteFailureTests {
    enum Fault: String, CaseIterable, Sendable {
        case diskFullOnWrite, ioErrorOnWrite, shortWriteThenDiskFull
    }

    @Test(arguments: Fault.allCases, [Durability.always, .grouped])
    func failedAppendThrowsLeavesNoTraceAndLaterAppliesSucceed(fault: Fault, durability: Durability) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let store = try await JournalDataSource.open(directory.storePath, durability: durability, fileSystem: fileSystem)
        try await store.apply(Sample.batch(1))
        let sizeBefore = await store.statistics().journalBytes
        switch fault {
        case .diskFullOnWrite: fileSystem.fail(.write, errno: 28, pathContains: "journal")
        case .ioErrorOnWrite: fileSystem.fail(.write, errno: 5, pathContains: "journal")
        case .shortWriteThenDiskFull: fileSystem.shortWriteThenFull(pathContains: "journal")
        }
        await #expect(throws: JournalError.self) { try await store.apply(Sample.batch(2)) }
        #expect(try await !Sample.holds(store, batch: 2), "a failed apply changes nothing")
        #expect(try await Sample.holds(store, batch: 1), "reads keep working")
        #expect(await store.statistics().journalBytes == sizeBefore)
        #expect(try fileBytes(directory.storePath + "/journal.1.jsonl").count == Int(sizeBefore), "the journal is cut back")
        try await store.apply(Sample.batch(3))
        try await store.close()

        let reopened = try await JournalDataSource.open(directory.storePath)
        #expect(try await Sample.holds(reopened, batch: 1))
        #expect(try await !Sample.holds(reopened, batch: 2))
        #expect(try await Sample.holds(reopened, batch: 3))
        #expect(await reopened.statistics().lastSequence == 2)
        try await reopened.close()
    }

    @Test func journalThatCannotBeRestoredPutsTheStoreInTheFailedState() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let store = try await JournalDataSource.open(directory.storePath, fileSystem: fileSystem)
        try await store.apply(Sample.batch(1))
        fileSystem.fail(.sync, errno: 5, pathContains: "journal", times: 2)
        await #expect(throws: JournalError.failed(file: directory.storePath + "/journal.1.jsonl", errno: 5)) {
            try await store.apply(Sample.batch(2))
        }
        await #expect(throws: JournalError.failed(file: directory.storePath + "/journal.1.jsonl", errno: 5)) {
            try await store.apply(Sample.batch(3))
        }
        #expect(try await Sample.holds(store, batch: 1))
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath)
        #expect(try await Sample.holds(reopened, batch: 1))
        #expect(await reopened.statistics().lastSequence <= 2)
        try await reopened.close()
    }

    @Test func alwaysSyncsOncePerApplyAndBufferedNever() async throws {
        for (durability, expected) in [(Durability.always, 10), (.buffered, 0)] {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            let fileSystem = FaultInjectingFileSystem()
            let store = try await JournalDataSource.open(directory.storePath, durability: durability, fileSystem: fileSystem)
            let before = fileSystem.count(.sync)
            let writesBefore = fileSystem.count(.write)
            for n in 1...10 { try await store.apply(Sample.batch(n)) }
            #expect(fileSystem.count(.sync) - before == expected)
            #expect(fileSystem.count(.write) - writesBefore == 10, "one write per apply")
            try await store.close()
        }
    }
}
