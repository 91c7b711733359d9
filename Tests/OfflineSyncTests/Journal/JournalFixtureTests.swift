import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// The committed stores in `Fixtures/journal/` must keep opening with exactly their content, so the on-disk
/// format cannot drift unnoticed.
///
/// To regenerate them (only when the format changes on purpose, with a new format version):
/// `JOURNAL_WRITE_FIXTURES=1 swift test --filter JournalFixtureTests/generateFixtures`.
struct JournalFixtureTests {
    static let fixtures: URL = {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        return root.appendingPathComponent("Fixtures/journal", isDirectory: true)
    }()

    static let batchA: [StoreChange] = [.upsert(table: "TodoItem", items: [
        ["id": "t1", "text": "buy milk", "complete": false, "priority": 1, "updatedAt": "2026-01-01T10:00:00.000Z", "version": "v1"],
        ["id": "t2", "text": "call \"Bob\"\nat 5", "complete": true, "priority": 2, "updatedAt": "2026-01-02T10:00:00.000Z", "version": "v1"],
        ["id": "t3", "text": "Grüße 🌍", "complete": false, "priority": 3, "updatedAt": "2026-01-03T10:00:00.000Z", "version": "v1"],
    ])]
    static let batchB: [StoreChange] = [.upsert(table: "__config", items: [["id": "deltaToken|TodoItem", "value": "2026-01-03T10:00:00.000Z"]])]
    static let batchC: [StoreChange] = [.upsert(table: "TodoItem", items: [
        ["id": "t4", "text": "new", "complete": false, "priority": 0.5, "tags": ["a", "b"], "owner": nil, "version": "v1"],
        ["id": "T2", "text": "call Bob", "complete": true, "priority": 2, "updatedAt": "2026-01-04T10:00:00.000Z", "version": "v2"],
    ])]
    static let batchD: [StoreChange] = [.delete(table: "TodoItem", ids: ["t3"])]

    /// Every item of every table, keyed "table/lower-cased id".
    private func contents(_ store: JournalDataSource) async throws -> [String: JSONObject] {
        var result: [String: JSONObject] = [:]
        for table in await store.statistics().tables.keys {
            for item in try await store.read(Query(table: table)).items {
                result["\(table)/\(item["id"]?.stringValue?.lowercased() ?? "")"] = item
            }
        }
        return result
    }

    private func expected(_ batches: [[StoreChange]]) -> [String: JSONObject] {
        var tables = TableSet()
        for batch in batches { tables.apply(batch) }
        var result: [String: JSONObject] = [:]
        for table in tables.tableNames {
            for item in tables.items(table: table) {
                result["\(table)/\(item["id"]?.stringValue?.lowercased() ?? "")"] = item
            }
        }
        return result
    }

    /// Copies fixture `name` to a temporary directory (open takes a lock and may repair).
    private func copy(_ name: String, to directory: TemporaryDirectory) throws {
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(name), to: directory.store)
    }

    @Test func validFixtureOpensWithExactlyItsItems() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try copy("valid", to: directory)
        #expect(try await JournalDataSource.verify(directory: directory.store).isSound)
        let store = try await JournalDataSource(directory: directory.store)
        #expect(try await contents(store) == expected([Self.batchA, Self.batchB, Self.batchC, Self.batchD]))
        #expect(try await store.read(table: "TodoItem", id: "t2")?["id"] == "T2")
        let statistics = await store.statistics()
        #expect(statistics.generation == 2 && statistics.lastSequence == 4 && statistics.journalRecords == 2)
        try await store.close()
    }

    /// A store written before lookup files existed opens with the snapshot loaded first, even when asked to load it in
    /// the background; its next compaction writes the lookup file, and the open after it answers before the load.
    @Test func aStoreWithoutALookupFileOpensAsBeforeAndGetsOneAtItsNextCompaction() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try copy("valid", to: directory)
        var options = JournalOptions()
        options.loadsSnapshotInBackground = true
        let store = try await JournalDataSource(directory: directory.store, options: options)
        #expect(await store.backgroundLoad == nil)
        let items = expected([Self.batchA, Self.batchB, Self.batchC, Self.batchD])
        #expect(try await contents(store) == items)
        try await store.compact()
        try await store.close()
        #expect(FileManager.default.fileExists(atPath: directory.storePath + "/snapshot.3.lookup"))
        let reopened = try await JournalDataSource(directory: directory.store, options: options)
        #expect(try await reopened.read(table: "TodoItem", id: "t2")?["text"] == "call Bob")
        try await reopened.waitUntilLoaded()
        #expect(try await contents(reopened) == items)
        try await reopened.close()
    }

    @Test func tornTailFixtureOpensWithTheCommittedPrefix() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try copy("torn-tail", to: directory)
        let store = try await JournalDataSource(directory: directory.store)
        #expect(try await contents(store) == expected([Self.batchA, Self.batchB, Self.batchC]))
        try await store.close()
    }

    @Test func zerosAheadFixtureOpensWithEveryRecordAndClosesWithoutTheZeros() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try copy("zeros-ahead", to: directory)
        #expect(try await JournalDataSource.verify(directory: directory.store).isSound)
        let store = try await JournalDataSource(directory: directory.store)
        #expect(try await contents(store) == expected([Self.batchA, Self.batchB, Self.batchC]))
        try await store.close()
        #expect(try fileBytes(directory.storePath + "/journal.1.jsonl").last == 0x0A)
    }

    @Test func midLogCorruptedFixtureIsRefusedWithFileOffsetAndSequence() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try copy("mid-log-corrupted", to: directory)
        let journal = directory.storePath + "/journal.1.jsonl"
        let headerLength = Int64(lineEnds(try fileBytes(journal))[0])
        await #expect {
            _ = try await JournalDataSource(directory: directory.store)
        } throws: { error in
            guard let error = error as? JournalError, error.code == .corrupted, let offset = error.offset else { return false }
            return error.path == journal && offset > headerLength && error.sequence == 2
        }
        let report = try await JournalDataSource.repair(directory: directory.store)
        #expect(report.recordsKept == 1)
        let store = try await JournalDataSource(directory: directory.store)
        #expect(try await contents(store) == expected([Self.batchA]))
        try await store.close()
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["JOURNAL_WRITE_FIXTURES"] == "1"))
    func generateFixtures() async throws {
        let manager = FileManager.default
        for name in ["valid", "torn-tail", "zeros-ahead", "mid-log-corrupted"] { try? manager.removeItem(at: Self.fixtures.appendingPathComponent(name)) }
        try manager.createDirectory(at: Self.fixtures, withIntermediateDirectories: true)
        func store(_ name: String, _ body: (JournalDataSource) async throws -> Void) async throws -> String {
            let path = Self.fixtures.appendingPathComponent(name).path
            let store = try await JournalDataSource.open(path)
            try await body(store)
            try await store.close()
            try manager.removeItem(atPath: path + "/lock")
            return path + "/journal.1.jsonl"
        }
        _ = try await store("valid") { store in
            try await store.apply(Self.batchA)
            try await store.apply(Self.batchB)
            try await store.compact()
            try await store.apply(Self.batchC)
            try await store.apply(Self.batchD)
        }
        let torn = try await store("torn-tail") { store in
            for batch in [Self.batchA, Self.batchB, Self.batchC, Self.batchD] { try await store.apply(batch) }
        }
        let tornBytes = try fileBytes(torn)
        let tornEnds = lineEnds(tornBytes)
        try writeBytes(Array(tornBytes[0..<((tornEnds[3] + tornEnds[4]) / 2)]), to: torn)
        let zerosAhead = try await store("zeros-ahead") { store in
            for batch in [Self.batchA, Self.batchB, Self.batchC] { try await store.apply(batch) }
        }
        try writeBytes(try fileBytes(zerosAhead) + [UInt8](repeating: 0, count: 8192), to: zerosAhead)
        let corrupted = try await store("mid-log-corrupted") { store in
            for batch in [Self.batchA, Self.batchB, Self.batchC] { try await store.apply(batch) }
        }
        var corruptedBytes = try fileBytes(corrupted)
        let corruptedEnds = lineEnds(corruptedBytes)
        corruptedBytes[corruptedEnds[2] - 10] ^= 0x01  // inside record 2's payload; records 3 follows
        try writeBytes(corruptedBytes, to: corrupted)
    }
}
