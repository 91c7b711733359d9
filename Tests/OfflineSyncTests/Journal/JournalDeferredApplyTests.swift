import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// `applyDeferringDurability` under `.always`: written at once, synced by the next synced apply.
struct JournalDeferredApplyTests {
    @Test func aDeferredApplyIsWrittenWithoutASyncAndKeptAcrossReopening() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let store = try await JournalDataSource.open(directory.storePath, durability: .always, fileSystem: fileSystem)
        try await store.apply([.upsert(table: "T", items: [["id": "durable"]])])
        let syncs = fileSystem.count(.sync)
        try await store.applyDeferringDurability([.upsert(table: "T", items: [["id": "deferred"]])])
        #expect(fileSystem.count(.sync) == syncs)
        try await store.apply([.upsert(table: "T", items: [["id": "next"]])])
        #expect(fileSystem.count(.sync) == syncs + 1)
        try await store.close()

        let reopened = try await JournalDataSource.open(directory.storePath)
        #expect(try await reopened.read(Query(table: "T", orderBy: [.ascending("id")])).items.map(\.["id"]) == ["deferred", "durable", "next"])
        try await reopened.close()
    }

    @Test func closeMakesADeferredLastApplyDurable() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = PowerLossFileSystem()
        var options = JournalOptions(durability: .always)
        options.automaticCompaction = false
        let store = try await JournalDataSource(path: directory.storePath, options: options, fileSystem: fileSystem)
        try await store.apply([.upsert(table: "T", items: [["id": "durable"]])])
        try await store.applyDeferringDurability([.upsert(table: "T", items: [["id": "deferred"]])])
        try await store.close()

        for seed in 0..<8 as Range<UInt64> {
            let reopened = try await PowerLossTests.reopenAfterPowerLoss(directory, fileSystem, seed: seed)
            #expect(try await reopened.read(table: "T", id: "deferred") != nil, "seed \(seed)")
            try await reopened.close()
        }
    }
}
