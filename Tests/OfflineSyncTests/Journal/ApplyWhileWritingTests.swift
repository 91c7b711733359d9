import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Large batches are applied to the tables while their record is written: when the write fails, the tables take the
/// batch back, indexes included, and nothing a reader can see has changed.
struct ApplyWhileWritingTests {
    static let index = IndexDefinition(table: "T", fields: ["done", "value"])

    /// A store through `fileSystem` that takes the applying-while-writing path for every batch of `minimumBytes` or more.
    static func open(_ directory: TemporaryDirectory, fileSystem: any FileSystem = POSIXFileSystem(),
                     minimumBytes: Int = 0, cipher: (any StoreCipher)? = nil) async throws -> JournalDataSource {
        var options = JournalOptions(durability: .always)
        options.automaticCompaction = false
        options.indexes = [index]
        options.applyWhileWritingBytes = minimumBytes
        options.cipher = cipher
        return try await JournalDataSource(path: directory.storePath, options: options, fileSystem: fileSystem)
    }

    /// Everything a reader can see of table "T": every item in id order, and the index's answer to a range query.
    static func visible(_ store: JournalDataSource) async throws -> [[JSONObject]] {
        let all = try await store.read(Query(table: "T", orderBy: [.ascending("id")])).items
        let indexed = try await store.read(Query(table: "T", filter: Field("done") == false && Field("value") > 2,
                                                 orderBy: [.descending("value"), .ascending("id")]))
        #expect(try await store.explain(Query(table: "T", filter: Field("done") == false, orderBy: [.ascending("value")])).access
            == .index(index, equalityFields: ["done"]))
        return [all, indexed.items]
    }

    /// Items 1...6; then a batch that replaces three of them (one under another casing of its id), deletes two (one
    /// of them unknown), inserts two and replaces one of its own inserts.
    static func seed(_ store: JournalDataSource) async throws {
        try await store.apply([.upsert(table: "T", items: (1...6).map { Sample.item("item-\($0)", Int64($0)) })])
    }

    /// A store through a fault-injecting file system, seeded, and what a reader sees of it.
    static func openSeeded(_ directory: TemporaryDirectory, minimumBytes: Int = 0) async throws
        -> (store: JournalDataSource, fileSystem: FaultInjectingFileSystem, before: [[JSONObject]]) {
        let fileSystem = FaultInjectingFileSystem()
        let store = try await open(directory, fileSystem: fileSystem, minimumBytes: minimumBytes)
        try await seed(store)
        return (store, fileSystem, try await visible(store))
    }

    static let mixedBatch: [StoreChange] = [
        .upsert(table: "T", items: [Sample.item("item-1", 10), Sample.item("ITEM-2", 0, text: "renamed"), Sample.item("new-1", 7)]),
        .delete(table: "T", ids: ["item-3", "never-there"]),
        .upsert(table: "T", items: [Sample.item("new-1", 8), Sample.item("new-2", 9), Sample.item("item-4", 1)]),
        .delete(table: "T", ids: ["Item-5"]),
    ]

    enum Fault: String, CaseIterable, Sendable { case writeFails, syncFails, diskFullMidWrite }

    @Test(arguments: Fault.allCases)
    func aBatchWhoseWriteFailsIsTakenBackFromTheTablesAndTheirIndex(fault: Fault) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (failing, fileSystem, before) = try await Self.openSeeded(directory)
        switch fault {
        case .writeFails: fileSystem.fail(.write, errno: 5, pathContains: "journal")
        case .syncFails: fileSystem.fail(.sync, errno: 5, pathContains: "journal")
        case .diskFullMidWrite: fileSystem.shortWriteThenFull(pathContains: "journal")
        }
        await #expect(throws: JournalError.self) { try await failing.apply(Self.mixedBatch) }
        #expect(try await Self.visible(failing) == before)
        #expect(await failing.statistics().lastSequence == 1)

        let store: JournalDataSource
        if fault == .syncFails {
            // A failed sync refuses every later write until the store is reopened (FailedSyncTests).
            await #expect(throws: JournalError.self) { try await failing.apply(Self.mixedBatch) }
            try await failing.close()
            store = try await Self.open(directory)
            #expect(try await Self.visible(store) == before)
        } else {
            store = failing
        }
        try await store.apply(Self.mixedBatch)
        let after = try await Self.visible(store)
        #expect(after != before)
        try await store.close()
        let reopened = try await Self.open(directory)
        #expect(try await Self.visible(reopened) == after)
        try await reopened.close()
    }

    /// A cipher that refuses to seal the record of ``mixedBatch`` (or any larger than `limit` bytes) while `refuses`.
    final class RefusingCipher: StoreCipher, @unchecked Sendable {
        let lock = NSLock()
        var refuses = true
        let limit = 200
        struct Refusal: Error {}
        var keyIdentifier: String { EncryptedStore.cipher.keyIdentifier }
        func seal(_ plaintext: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
            if lock.withLock({ refuses }), plaintext.count > limit { throw Refusal() }
            return try EncryptedStore.cipher.seal(plaintext, associatedData: associatedData)
        }
        func open(_ sealed: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
            try EncryptedStore.cipher.open(sealed, associatedData: associatedData)
        }
    }

    @Test func aSealedRecordThatCannotBeSealedTakesItsBatchBackFromTheTables() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let cipher = RefusingCipher()
        let store = try await Self.open(directory, cipher: cipher)
        try await store.apply([.upsert(table: "T", items: [Sample.item("item-1", 1)])])
        let before = try await Self.visible(store)
        await #expect(throws: JournalError.self) { try await store.apply(Self.mixedBatch) }
        #expect(try await Self.visible(store) == before)
        #expect(await store.statistics().lastSequence == 1)

        cipher.lock.withLock { cipher.refuses = false }
        try await store.apply(Self.mixedBatch)
        let after = try await Self.visible(store)
        #expect(after != before)
        try await store.close()
        let reopened = try await Self.open(directory, cipher: EncryptedStore.cipher)
        #expect(try await Self.visible(reopened) == after)
        try await reopened.close()
    }

    @Test func aBatchAppliedWhileWritingReadsAsTheSameBatchAppliedAfterIt() async throws {
        let overlapping = TemporaryDirectory(), inPlace = TemporaryDirectory()
        defer { overlapping.remove(); inPlace.remove() }
        let first = try await Self.open(overlapping)
        let second = try await Self.open(inPlace, minimumBytes: .max)
        for store in [first, second] {
            try await Self.seed(store)
            try await store.apply(Self.mixedBatch)
        }
        #expect(try await Self.visible(first) == Self.visible(second))
        try await first.close()
        try await second.close()
    }

    @Test func aJournalThatCannotBeCutBackLeavesTheStoreFailedShowingWhatItHeldBefore() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (store, fileSystem, before) = try await Self.openSeeded(directory)
        fileSystem.fail(.sync, errno: 5, pathContains: "journal", times: 2)
        await #expect(throws: JournalError.self) { try await store.apply(Self.mixedBatch) }
        #expect(try await Self.visible(store) == before)
        await #expect(throws: JournalError.self) { try await store.apply(Sample.batch(1)) }
    }

    @Test func aLargeBatchTakesThePathByDefaultAndIsTakenBackWhenItsWriteFails() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (store, fileSystem, before) = try await Self.openSeeded(directory, minimumBytes: JournalOptions().applyWhileWritingBytes)
        // New items, and the seeded ones under another casing with other indexed values: the index entries this
        // upsert adds are built aside (AddedIndexEntries), and those it replaces must come back.
        let items = (0..<2_000).map { Sample.item("bulk-\($0)", Int64($0 % 7)) } + (1...6).map { Sample.item("ITEM-\($0)", Int64(100 + $0)) }
        let large: [StoreChange] = [.upsert(table: "T", items: items)]
        #expect(items.count >= AddedIndexEntries.minimumItems)
        var payload: [UInt8] = []
        try JournalPayload.write(large, into: &payload)
        #expect(payload.count >= JournalOptions().applyWhileWritingBytes)
        fileSystem.fail(.write, errno: 28, pathContains: "journal")
        await #expect(throws: JournalError.self) { try await store.apply(large) }
        #expect(try await Self.visible(store) == before)
        try await store.apply(large)
        #expect(await store.statistics().tables["T"] == 2_006)
        try await store.close()
    }

    /// How many calls have answered, for a test to look at while it cannot yet await them.
    private actor AnsweredCalls {
        var count = 0
        func add() { count += 1 }
    }

    @Test(arguments: [false, true])
    func noCallSeesABatchAppliedWhileItsRecordIsBeingWritten(writeFails: Bool) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (store, fileSystem, before) = try await Self.openSeeded(directory)
        if writeFails { fileSystem.fail(.write, errno: 5, pathContains: "journal") }
        let applied = Task<Void, any Error> {
            try await withCheckedThrowingContinuation { (entered: CheckedContinuation<Void, any Error>) in
                fileSystem.closeGate(pathContains: "journal") { entered.resume() }
                Task { try? await store.apply(Self.mixedBatch) }
            }
        }
        try await applied.value
        let answered = AnsweredCalls()
        let seen = Task {
            let visible = try await Self.visible(store)
            await answered.add()
            let names = try await store.tableNames()
            await answered.add()
            let lastSequence = await store.statistics().lastSequence
            await answered.add()
            return (visible, names, lastSequence)
        }
        // Each call either answers (wrongly) or waits for the store to be idle: wait until one waits or all answered.
        #expect(await eventually {
            if await answered.count == 3 { return true }
            return await !store.idleWaiters.isEmpty
        })
        #expect(await answered.count == 0, "a call answered while the batch's record was still being written")
        fileSystem.openGate()
        let (visible, names, lastSequence) = try await seen.value
        #expect((visible == before) == writeFails)
        #expect(names == ["T"])
        #expect(lastSequence == (writeFails ? 1 : 2))
        try await store.close()
    }
}
