import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal

/// A journal store opened with ``JournalOptions/cipher``: it reads back what it wrote, its files hold nothing
/// readable, the wrong key or none is refused without a file changing, and sealed pieces changed on disk are damage.
struct EncryptedStoreTests {
    static let secret = "Ünïcode-SECRET-näme-4711"
    /// A table name is sealed too (table names are ASCII).
    static let table = "TableNameMarker-42"

    static func item(_ id: String, _ n: Int) -> JSONObject {
        ["id": .string(id), "text": .string("\(secret) \(n)"), "nested": ["deep": .string(secret), "list": [.string(secret), .int(Int64(n))]],
         "count": .int(Int64(n))]
    }

    /// Writes items in several records and a compaction, then more records: a snapshot and a journal with records.
    static func fill(_ store: JournalDataSource) async throws {
        for n in 0..<10 { try await store.apply([.upsert(table: table, items: [item("a\(n)", n), item("b\(n)", n)])]) }
        try await store.compact()
        for n in 10..<15 { try await store.apply([.upsert(table: table, items: [item("a\(n)", n)])]) }
        try await store.apply([.delete(table: table, ids: ["a1", "b2"])])
    }

    static func count(_ store: JournalDataSource) async throws -> Int {
        try await store.read(Query(table: table)).items.count
    }

    @Test func anEncryptedStoreReadsBackEveryItemAfterReopeningAndItsFilesHoldNoRunOfAnyItemText() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher)
        try await Self.fill(store)
        #expect(try await Self.count(store) == 23)
        try await store.close()
        #expect(try EncryptedStore.leaks(of: Self.secret, at: directory.storePath) == [])
        #expect(try EncryptedStore.leaks(of: Self.table, at: directory.storePath) == [])

        let reopened = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher)
        #expect(try await Self.count(reopened) == 23)
        #expect(try await reopened.read(table: Self.table, id: "a12") == Self.item("a12", 12))
        try await reopened.close()
    }

    @Test(arguments: [Durability.grouped, .buffered])
    func everyWritePathSealsItsRecords(durability: Durability) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher) {
            $0.durability = durability
            $0.writeThread = .dedicated
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask { for n in 0..<5 { try await store.apply([.upsert(table: "T", items: [Self.item("w\(writer)-\(n)", n)])]) } }
            }
            try await group.waitForAll()
        }
        try await store.close()
        #expect(try EncryptedStore.leaks(of: Self.secret, at: directory.storePath) == [])
        let reopened = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher)
        #expect(try await reopened.read(Query(table: "T")).items.count == 20)
        try await reopened.close()
    }

    @Test func aLargeBatchAppliedWhileItsRecordIsWrittenIsSealedToo() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher) { $0.applyWhileWritingBytes = 0 }
        try await store.apply([.upsert(table: "T", items: (0..<1_000).map { Self.item("i\($0)", $0) })])
        try await store.close()
        #expect(try EncryptedStore.leaks(of: Self.secret, at: directory.storePath) == [])
        let reopened = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher)
        #expect(try await reopened.read(Query(table: "T")).items.count == 1_000)
        try await reopened.close()
    }

    @Test func openingWithoutACipherWithAnotherKeyOrAPlaintextStoreWithACipherThrowsAndChangesNoFile() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher)
        try await Self.fill(store)
        // Left open uncleanly: zeros written ahead, which an open with the key would cut off.
        try await store.apply([.upsert(table: "T", items: [Self.item("last", 0)])])
        let before = try EncryptedStore.files(at: directory.storePath)
        try await store.close()
        let closed = try EncryptedStore.files(at: directory.storePath)

        let withoutKey = await #expect(throws: JournalError.self) { _ = try await EncryptedStore.open(directory.storePath, cipher: nil) }
        #expect(withoutKey?.code == .encrypted)
        #expect(withoutKey?.keyIdentifier == "test-key-1")
        #expect(withoutKey?.description.contains("is encrypted") == true)
        let wrongKey = await #expect(throws: JournalError.self) {
            _ = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher(key: EncryptedStore.otherKey, identifier: "test-key-1"))
        }
        #expect(wrongKey?.code == .wrongKey)
        await #expect(throws: JournalError.self) { _ = try await JournalDataSource.verify(directory: directory.store) }
        await #expect(throws: JournalError.self) { _ = try await JournalDataSource.repair(directory: directory.store) }
        #expect(try EncryptedStore.files(at: directory.storePath) == closed)
        #expect(before.keys == closed.keys)

        let plain = TemporaryDirectory()
        defer { plain.remove() }
        let plainStore = try await EncryptedStore.open(plain.storePath, cipher: nil)
        try await plainStore.apply([.upsert(table: "T", items: [Self.item("p", 1)])])
        try await plainStore.close()
        let plainFiles = try EncryptedStore.files(at: plain.storePath)
        let notEncrypted = await #expect(throws: JournalError.self) { _ = try await EncryptedStore.open(plain.storePath, cipher: EncryptedStore.cipher) }
        #expect(notEncrypted?.code == .notEncrypted)
        #expect(try EncryptedStore.files(at: plain.storePath) == plainFiles)
    }

    @Test func verifyAndRepairWithTheKeyCheckASoundEncryptedStore() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher)
        try await Self.fill(store)
        try await store.close()
        let verification = try await JournalDataSource.verify(directory: directory.store, cipher: EncryptedStore.cipher)
        #expect(verification.isSound)
        #expect(verification.records == 6)
        let report = try await JournalDataSource.repair(directory: directory.store, cipher: EncryptedStore.cipher)
        #expect(report.movedAside.isEmpty)
    }
}
