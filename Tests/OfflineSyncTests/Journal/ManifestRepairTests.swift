import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// `repair` of a store whose manifest (`CURRENT`) is damaged or gone: found by the damage fuzz, where such stores
/// could not be repaired and so never opened again.
struct ManifestRepairTests {
    /// A closed store with batches 1…3 in snapshot 2 and 4…5 in journal 2.
    private func makeStore(_ directory: TemporaryDirectory) async throws {
        let store = try await JournalDataSource.open(directory.storePath)
        for n in 1...3 { try await store.apply(Sample.batch(n)) }
        try await store.compact()
        for n in 4...5 { try await store.apply(Sample.batch(n)) }
        try await store.close()
    }

    @Test(arguments: [Array("{\"c\":\"0000\"".utf8), [], Array("garbage\n".utf8)])
    func aDamagedManifestIsRebuiltFromTheFilesAndMovedAside(_ damaged: [UInt8]) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await makeStore(directory)
        try writeBytes(damaged, to: directory.storePath + "/CURRENT")
        await #expect(throws: JournalError.self) { try await JournalDataSource.open(directory.storePath) }
        let report = try await JournalDataSource.repair(directory: directory.store)
        #expect(report.movedAside.contains { $0.hasSuffix("CURRENT.broken") })
        #expect(try await Sample.heldBatches(at: directory.storePath, among: 1...5) == [1, 2, 3, 4, 5])
    }

    @Test func aMissingManifestIsRebuiltFromTheFiles() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await makeStore(directory)
        try FileManager.default.removeItem(atPath: directory.storePath + "/CURRENT")
        _ = try await JournalDataSource.repair(directory: directory.store)
        #expect(try await Sample.heldBatches(at: directory.storePath, among: 1...5) == [1, 2, 3, 4, 5])
    }

    @Test func aMissingJournalEndsThePrefixAtTheSnapshot() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await makeStore(directory)
        try FileManager.default.removeItem(atPath: directory.storePath + "/journal.2.jsonl")
        _ = try await JournalDataSource.repair(directory: directory.store)
        #expect(try await Sample.heldBatches(at: directory.storePath, among: 1...5) == [1, 2, 3])
        let store = try await JournalDataSource.open(directory.storePath)
        try await store.apply(Sample.batch(9))
        try await store.close()
        #expect(try await Sample.heldBatches(at: directory.storePath, among: 1...9) == [1, 2, 3, 9], "the store takes new writes after the repair")
    }

    /// An encrypted store's manifest rebuilt when no journal header names its key: its sealed snapshot alone is left
    /// (a crash inside `rekey` after the new snapshot's rename, before its journal, and `CURRENT` lost), or the
    /// journal's header is damaged. A key that opens none of the snapshot's blocks nor records is refused, whatever
    /// its identifier, and nothing is changed: taken for the store's key, it would read every block as damage.
    @Test(arguments: [true, false])
    func aRebuildWithoutAJournalHeaderNamingTheKeyRefusesAKeyThatOpensNothing(journalGone: Bool) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await EncryptedDamageTests.makeStore(directory)
        try FileManager.default.removeItem(atPath: directory.storePath + "/CURRENT")
        let journal = directory.storePath + "/journal.2.jsonl"
        if journalGone {
            try FileManager.default.removeItem(atPath: journal)
        } else {
            var bytes = try fileBytes(journal)
            bytes[12] ^= 0x01
            try writeBytes(bytes, to: journal)
        }
        let before = try EncryptedStore.files(at: directory.storePath)
        for wrong in [EncryptedStore.otherCipher, EncryptedStore.cipher(key: EncryptedStore.otherKey, identifier: "test-key-1")] {
            let error = await #expect(throws: JournalError.self) {
                _ = try await JournalDataSource.repair(directory: directory.store, cipher: wrong)
            }
            #expect(error?.code == .wrongKey, "\(wrong.keyIdentifier): \(String(describing: error))")
            #expect(try EncryptedStore.files(at: directory.storePath) == before, "\(wrong.keyIdentifier): nothing is changed")
        }
        _ = try await JournalDataSource.repair(directory: directory.store, cipher: EncryptedStore.cipher)
        let store = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher)
        #expect(try await store.read(Query(table: "T")).items.count == 20, "the snapshot's items, under the store's key")
        try await store.close()
    }

    @Test func aDamagedManifestAloneIsMovedAsideAndTheStoreStartsEmpty() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.store, withIntermediateDirectories: true)
        try writeBytes(Array("garbage".utf8), to: directory.storePath + "/CURRENT")
        let report = try await JournalDataSource.repair(directory: directory.store)
        #expect(report.movedAside.count == 1)
        #expect(try await Sample.heldBatches(at: directory.storePath, among: 1...5).isEmpty)
    }
}
