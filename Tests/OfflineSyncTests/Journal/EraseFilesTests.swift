import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// `SyncContext.erase()` over a journal store: no byte of an erased item is left in the store's files, and a power
/// loss at any point of it leaves everything or nothing erased.
struct EraseFilesTests {
    static let marker = "SECRET-of-the-previous-user"

    /// Items holding the marker in the journal, in a snapshot generation and in a queued delete's snapshot, some of
    /// them pushed and pulled back.
    static func fill(_ context: SyncContext, store: JournalDataSource, remote: InMemoryRemote) async throws {
        await remote.seed([["id": "pulled", "text": .string(marker + " pulled")]], table: "TodoItem")
        try await context.table("TodoItem").pull(queryId: "all")
        try await context.table("TodoItem").insert(["id": "a", "text": .string(marker + " a")])
        try await context.push()
        try await store.compact()
        try await context.table("Notes").insert(["id": "n", "body": .string(marker + " n")])
        try await context.table("TodoItem").delete(["id": "pulled", "text": .string(marker + " deleted")])
    }

    /// The store's files that hold `text`.
    static func files(in directory: URL, holding text: String) throws -> [String] {
        let needle = Data(text.utf8)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { name in
            try Data(contentsOf: directory.appendingPathComponent(name)).range(of: needle) != nil
        }
    }

    @Test(arguments: [Durability.always, .buffered])
    func noFileOfTheStoreHoldsAByteOfAnErasedItem(durability: Durability) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource(directory: directory.store, options: JournalOptions(durability: durability))
        let remote = InMemoryRemote()
        let context = SyncContext(dataSource: store, remote: remote)
        try await Self.fill(context, store: store, remote: remote)
        // A damaged part a repair kept aside, and a file that is not the store's.
        try writeBytes(Array("{\"text\":\"\(Self.marker)\"}".utf8), to: directory.store.appendingPathComponent("journal.1.jsonl.broken").path)
        try writeBytes(Array("not the store's".utf8), to: directory.store.appendingPathComponent("notes.txt").path)
        #expect(try Self.files(in: directory.store, holding: Self.marker).count >= 3)

        try await context.erase()
        #expect(try Self.files(in: directory.store, holding: Self.marker) == [])
        #expect(try Self.files(in: directory.store, holding: "not the store's") == ["notes.txt"])

        try await context.table("TodoItem").insert(["id": "next", "text": "next user"])
        try await store.close()
        let reopened = try await JournalDataSource(directory: directory.store)
        #expect(try await reopened.read(Query(table: "TodoItem")).items.map(\.["id"]) == ["next"])
        #expect(try await reopened.tableNames().sorted() == ["TodoItem", EngineTables.config, EngineTables.operations].sorted())
        try await reopened.close()
    }

    @Test func anErasedEncryptedStoreKeepsNoByteOfItsItemsPlainOrSealed() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = JournalOptions()
        options.cipher = EncryptedStore.cipher
        let store = try await JournalDataSource(directory: directory.store, options: options)
        let remote = InMemoryRemote()
        let context = SyncContext(dataSource: store, remote: remote)
        try await Self.fill(context, store: store, remote: remote)
        #expect(try EncryptedStore.leaks(of: Self.marker, at: directory.storePath) == [])
        let sealed = try EncryptedStore.sealedRuns(at: directory.storePath)
        #expect(sealed.count > 20)

        try await context.erase()
        #expect(try EncryptedStore.files(at: directory.storePath, holdingAnyOf: sealed) == [])
        #expect(try EncryptedStore.leaks(of: Self.marker, at: directory.storePath) == [])
        try await context.table("TodoItem").insert(["id": "next", "text": "next user"])
        try await store.close()
        let reopened = try await JournalDataSource(directory: directory.store, options: options)
        #expect(try await reopened.read(Query(table: "TodoItem")).items.map(\.["id"]) == ["next"])
        try await reopened.close()
    }

    @Test func whenAnOldFileCannotBeDeletedEraseThrowsWithEverythingErasedAndASecondEraseFinishes() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let store = try await JournalDataSource.open(directory.storePath, fileSystem: fileSystem)
        let remote = InMemoryRemote()
        let context = SyncContext(dataSource: store, remote: remote)
        try await Self.fill(context, store: store, remote: remote)
        fileSystem.fail(.remove, errno: 13, pathContains: "journal.")
        await #expect(throws: JournalError.self) { try await context.erase() }
        #expect(try await Self.heldRows(store) == 0)
        #expect(try await context.pendingOperations().isEmpty)
        func journals() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: directory.storePath).filter { $0.hasPrefix("journal.") }
        }
        // The old journal could not be deleted, but it was overwritten with zeros first.
        #expect(try journals().count == 2)
        #expect(try Self.files(in: directory.store, holding: Self.marker) == [])

        try await context.erase()
        #expect(try journals().count == 1)
        #expect(try Self.files(in: directory.store, holding: Self.marker) == [])
        try await store.close()
    }

    /// What a run of the erase workload got done before the power failed.
    struct Run {
        var filled = false
        var erased = false
        var poweredOff = false
    }

    static func eraseWorkload(_ directory: TemporaryDirectory, _ fileSystem: PowerLossFileSystem) async -> Run {
        var run = Run()
        var store: JournalDataSource?
        do {
            let opened = try await JournalDataSource.open(directory.storePath, fileSystem: fileSystem)
            store = opened
            let remote = InMemoryRemote()
            let context = SyncContext(dataSource: opened, remote: remote)
            try await fill(context, store: opened, remote: remote)
            run.filled = true
            try await context.erase()
            run.erased = true
            try await opened.close()
        } catch {}
        if let store { try? await store.close() }
        run.poweredOff = fileSystem.poweredOff
        return run
    }

    /// Rows of the user tables and the queue: 2 items and 2 operations when nothing is erased.
    static func heldRows(_ store: JournalDataSource) async throws -> Int {
        var count = 0
        for table in ["TodoItem", "Notes", EngineTables.operations] { count += try await store.read(Query(table: table)).items.count }
        return count
    }

    @Test func aPowerLossDuringEraseLeavesEverythingOrNothingErased() async throws {
        var point = 0
        var checked = 0
        var outcomes = Set<Int>()
        sweep: while true {
            for outcome in 0..<PowerLossTests.outcomesPerPoint {
                let directory = TemporaryDirectory()
                defer { directory.remove() }
                let fileSystem = PowerLossFileSystem(failingAt: point)
                let run = await Self.eraseWorkload(directory, fileSystem)
                if !run.poweredOff { break sweep }
                guard run.filled else { break }
                let seed = UInt64(point * 1000 + outcome)
                let store = try await PowerLossTests.reopenAfterPowerLoss(directory, fileSystem, seed: seed)
                let held = try await Self.heldRows(store)
                let tokens = try await store.read(Query(table: EngineTables.config, filter: Field("kind") == "deltaToken")).items.count
                if run.erased {
                    #expect(held == 0 && tokens == 0, "operation \(point), seed \(seed): erase returned but \(held) rows are left")
                } else {
                    #expect((held == 4 && tokens == 1) || (held == 0 && tokens == 0),
                            "operation \(point), seed \(seed): half erased: \(held) rows, \(tokens) tokens")
                }
                outcomes.insert(held)
                try await store.close()
                checked += 1
            }
            point += 1
        }
        #expect(checked > 10, "the erase has \(checked) crash outcomes checked")
        #expect(outcomes == [0, 4], "power lost before and after the erase's record: \(outcomes)")
    }
}
