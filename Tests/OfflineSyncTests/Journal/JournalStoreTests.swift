import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

struct JournalStoreTests {
    @Test func appliedItemsSurviveReopening() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource(directory: directory.store)
        for n in 1...5 { try await store.apply(Sample.batch(n)) }
        try await store.apply([.delete(table: "T", ids: ["2-A"])])
        try await store.close()

        let reopened = try await JournalDataSource(directory: directory.store)
        #expect(try await reopened.read(table: "T", id: "2-a") == nil)
        #expect(try await reopened.read(table: "t", id: "1-a") == nil)
        let item = try #require(try await reopened.read(table: "T", id: "5-B"))
        #expect(item["text"] == "line\nbreak \"quoted\" ü")
        #expect(try await reopened.read(Query(table: "T")).items.count == 9)
        let statistics = await reopened.statistics()
        #expect(statistics.lastSequence == 6)
        #expect(statistics.tables == ["T": 9])
        try await reopened.close()
    }

    @Test func filteredDeleteAllIsJournaledAsTheIdsItMatched() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath)
        try await store.apply(Sample.batch(1) + Sample.batch(2))
        try await store.apply([
            .upsert(table: "T", items: [Sample.item("3-a", 3)]),
            .deleteAll(table: "T", matching: Field("value") >= 2),
            .upsert(table: "U", items: [Sample.item("u", 1)]),
            .deleteAll(table: "U", matching: nil),
        ])
        try await store.close()
        let journal = String(decoding: try fileBytes(directory.storePath + "/journal.1.jsonl"), as: UTF8.self)
        #expect(journal.contains(#"{"delete":"T","ids":["#))
        #expect(journal.contains(#"{"clear":"U"}"#))
        let reopened = try await JournalDataSource.open(directory.storePath)
        #expect(Set(try await reopened.read(Query(table: "T")).items.compactMap { $0["id"]?.stringValue }) == ["1-a", "1-b"])
        #expect(try await reopened.read(Query(table: "U")).items.isEmpty)
        try await reopened.close()
    }

    @Test func invalidBatchThrowsAndWritesNothing() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath)
        try await store.apply(Sample.batch(1))
        let before = await store.statistics()
        await #expect(throws: DataSourceError.self) {
            try await store.apply([.upsert(table: "T", items: [Sample.item("ok", 1)]), .upsert(table: "T", items: [["id": 5]])])
        }
        await #expect(throws: DataSourceError.self) { try await store.apply([.delete(table: "bad name", ids: ["x"])]) }
        #expect(await store.statistics() == before)
        #expect(try await store.read(table: "T", id: "ok") == nil)
        try await store.close()
    }

    @Test func callsAfterCloseThrowClosedAndSecondCloseDoesNothing() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath)
        try await store.close()
        try await store.close()
        await #expect(throws: JournalError.closed) { try await store.apply(Sample.batch(1)) }
        await #expect(throws: JournalError.closed) { _ = try await store.read(table: "T", id: "x") }
        await #expect(throws: JournalError.closed) { _ = try await store.read(Query(table: "T")) }
        await #expect(throws: JournalError.closed) { try await store.compact() }
    }

    @Test func secondOpenInTheSameProcessIsLockedUntilClose() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource(directory: directory.store)
        await #expect(throws: JournalError.locked(directory: directory.storePath)) {
            _ = try await JournalDataSource(directory: directory.store)
        }
        await #expect(throws: JournalError.locked(directory: directory.storePath)) {
            _ = try await JournalDataSource.verify(directory: directory.store)
        }
        try await store.close()
        let again = try await JournalDataSource(directory: directory.store)
        try await again.close()
    }

    @Test func droppingTheStoreWithoutCloseReleasesTheLock() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        do {
            let store = try await JournalDataSource.open(directory.storePath)
            try await store.apply(Sample.batch(1))
        }
        let again = try await JournalDataSource.open(directory.storePath)
        #expect(try await Sample.holds(again, batch: 1))
        try await again.close()
    }

    @Test func createdDirectoryAndFilesAreOwnerOnly() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let nested = directory.url.appendingPathComponent("a/b/store")
        let store = try await JournalDataSource(directory: nested)
        try await store.apply(Sample.batch(1))
        try await store.compact()
        try await store.close()
        func mode(_ path: String) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
        }
        #expect(try mode(nested.path) == 0o700)
        #expect(try mode(directory.url.appendingPathComponent("a").path) == 0o700)
        let names = try FileManager.default.contentsOfDirectory(atPath: nested.path).sorted()
        #expect(names == ["CURRENT", "journal.2.jsonl", "lock", "snapshot.2.json", "snapshot.2.lookup"])
        for name in names { #expect(try mode(nested.path + "/" + name) == 0o600, "\(name)") }
    }

    @Test func engineTablesAreOrdinaryTables() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath)
        try await store.apply([
            .upsert(table: "__operations", items: [["id": "1", "kind": "insert"]]),
            .upsert(table: "__config", items: [["id": "deltaToken", "value": "x"]]),
        ])
        try await store.compact()
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath)
        #expect(await reopened.statistics().tables == ["__operations": 1, "__config": 1])
        try await reopened.close()
    }

    @Test func oversizedRecordIsRejectedBeforeWriting() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath) { $0.maximumRecordBytes = 1000 }
        let big = String(repeating: "x", count: 2000)
        await #expect(throws: JournalError.self) { try await store.apply([.upsert(table: "T", items: [["id": "1", "text": .string(big)]])]) }
        #expect(await store.statistics().lastSequence == 0)
        try await store.apply(Sample.batch(1))
        try await store.close()
    }

    @Test(arguments: [Durability.always, .grouped, .buffered])
    func everyDurabilityPersistsAcrossReopen(durability: Durability) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath, durability: durability)
        for n in 1...10 { try await store.apply(Sample.batch(n)) }
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath)
        for n in 1...10 { #expect(try await Sample.holds(reopened, batch: n)) }
        try await reopened.close()
    }

    @Test func sixteenGroupedWritersShareSyncs() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let store = try await JournalDataSource.open(directory.storePath, durability: .grouped, fileSystem: fileSystem)
        let syncsBefore = fileSystem.count(.sync)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<16 {
                group.addTask {
                    for step in 0..<25 { try await store.apply(Sample.batch(writer * 100 + step)) }
                }
            }
            try await group.waitForAll()
        }
        let syncs = fileSystem.count(.sync) - syncsBefore
        #expect(syncs < 400, "\(syncs) syncs for 400 records")
        #expect(await store.statistics().lastSequence == 400)
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath)
        for writer in 0..<16 {
            for step in 0..<25 { #expect(try await Sample.holds(reopened, batch: writer * 100 + step)) }
        }
        try await reopened.close()
    }
}
