import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Group commit under concurrent writers: a failed write fails every apply of its group and only those, a failed
/// sync every apply of its group and every later one (``FailedSyncTests``); the others are durable and visible, before
/// and after reopening.
struct GroupCommitWaitTests {
    @Test(arguments: [FaultInjectingFileSystem.Operation.sync, .write])
    func aFailedGroupFailsExactlyItsOwnApplies(operation: FaultInjectingFileSystem.Operation) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let store = try await JournalDataSource.open(directory.storePath, durability: .grouped, fileSystem: fileSystem)
        try await store.apply(Sample.batch(0))
        fileSystem.fail(operation, errno: 5, pathContains: "journal")
        let outcomes = try await withThrowingTaskGroup(of: [(Int, Bool)].self) { group in
            for writer in 0..<16 {
                group.addTask {
                    var outcomes: [(Int, Bool)] = []
                    for step in 1...6 {
                        let n = writer * 100 + step
                        do {
                            try await store.apply(Sample.batch(n))
                            outcomes.append((n, true))
                        } catch is JournalError {
                            outcomes.append((n, false))
                        }
                    }
                    return outcomes
                }
            }
            var all: [(Int, Bool)] = []
            for try await writerOutcomes in group { all += writerOutcomes }
            return all
        }
        let failed = outcomes.filter { !$0.1 }.count
        if operation == .sync {
            #expect(failed == outcomes.count, "\(failed) of \(outcomes.count) applies failed; after a failed sync every one should")
        } else {
            #expect(failed >= 1 && failed <= 16, "\(failed) applies failed; one group of at most 16 should have")
        }
        for (n, succeeded) in outcomes { #expect(try await Sample.holds(store, batch: n) == succeeded, "batch \(n)") }
        #expect(await store.statistics().lastSequence == Int64(1 + outcomes.count - failed))
        try await store.close()

        let reopened = try await JournalDataSource.open(directory.storePath)
        #expect(try await Sample.holds(reopened, batch: 0))
        for (n, succeeded) in outcomes { #expect(try await Sample.holds(reopened, batch: n) == succeeded, "batch \(n) after reopening") }
        try await reopened.close()
    }

    /// The flush loop waits for as many batches as its last group carried; when writers stop, the wait ends on its
    /// timer and the remaining writers still finish, with every record written.
    @Test func writersThatStopDoNotStallTheOthers() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath, durability: .grouped)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<12 {
                group.addTask {
                    for step in 0..<(writer + 1) { try await store.apply(Sample.batch(writer * 100 + step)) }
                }
            }
            try await group.waitForAll()
        }
        #expect(await store.statistics().lastSequence == Int64((1...12).reduce(0, +)))
        try await store.compact()
        try await store.apply(Sample.batch(9999))
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath)
        for writer in 0..<12 {
            for step in 0..<(writer + 1) { #expect(try await Sample.holds(reopened, batch: writer * 100 + step)) }
        }
        #expect(try await Sample.holds(reopened, batch: 9999))
        try await reopened.close()
    }
}
