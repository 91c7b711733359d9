import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// ``JournalWriteThread/dedicated``: a write held up by the disk holds the store's own thread, not the store.
struct JournalWriteThreadTests {
    @Test(arguments: [Durability.always, .grouped, .buffered])
    func readsAndOtherTasksGoOnWhileADedicatedThreadWaitsForTheDisk(durability: Durability) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let store = try await JournalDataSource.open(directory.storePath, durability: durability, fileSystem: fileSystem,
                                                     writeThread: .dedicated)
        try await store.apply(Sample.batch(1))
        let held = Task {
            await withCheckedContinuation { (entered: CheckedContinuation<Void, Never>) in
                fileSystem.closeGate(pathContains: "journal") { entered.resume() }
                Task { try await store.apply(Sample.batch(2)) }
            }
        }
        await held.value
        #expect(try await Sample.holds(store, batch: 1))
        #expect(try await !Sample.holds(store, batch: 2), "an apply whose write has not returned is not visible")
        fileSystem.openGate()
        #expect(try await eventually { try await Sample.holds(store, batch: 2) })
        try await store.apply(Sample.batch(3))
        try await store.close()

        #expect(try await Sample.heldBatches(at: directory.storePath, among: 1...3) == [1, 2, 3])
    }

    @Test func writesFromManyTasksOnADedicatedThreadKeepTheirOrder() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath, writeThread: .dedicated)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask { for step in 0..<20 { try await store.apply(Sample.batch(writer * 100 + step)) } }
            }
            try await group.waitForAll()
        }
        #expect(await store.statistics().lastSequence == 160)
        try await store.close()
        let written = (0..<8).flatMap { writer in (0..<20).map { writer * 100 + $0 } }
        #expect(try await Sample.heldBatches(at: directory.storePath, among: 0...719) == written)
    }
}
