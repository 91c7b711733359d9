import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal

/// ``JournalDataSource/rekey(to:)``: encrypts a plaintext store, re-keys an encrypted one and decrypts one, keeping
/// every item, leaving no file under the old key (or in plaintext), and failing whole when a step fails.
struct RekeyTests {
    static let secret = EncryptedStoreTests.secret

    static func fill(_ store: JournalDataSource) async throws {
        for n in 0..<5 { try await store.apply([.upsert(table: "T", items: [EncryptedStoreTests.item("i\(n)", n)])]) }
        try await store.compact()
        try await store.apply([.upsert(table: "T", items: [EncryptedStoreTests.item("after", 9)])])
    }

    static func count(_ store: JournalDataSource) async throws -> Int {
        try await store.read(Query(table: "T")).items.count
    }

    @Test func aPlaintextStoreIsEncryptedReKeyedAndDecryptedKeepingEveryItem() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await EncryptedStore.open(directory.storePath, cipher: nil)
        try await Self.fill(store)
        #expect(try EncryptedStore.leaks(of: Self.secret, at: directory.storePath) != [])

        try await store.rekey(to: EncryptedStore.cipher)
        #expect(try EncryptedStore.leaks(of: Self.secret, at: directory.storePath) == [])
        try await store.apply([.upsert(table: "T", items: [EncryptedStoreTests.item("sealed", 1)])])
        try await store.close()
        #expect(try EncryptedStore.leaks(of: Self.secret, at: directory.storePath) == [])
        await #expect(throws: JournalError.self) { _ = try await EncryptedStore.open(directory.storePath, cipher: nil) }

        let encrypted = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher)
        #expect(try await Self.count(encrypted) == 7)
        let sealedUnderOldKey = try EncryptedStore.files(at: directory.storePath)
        try await encrypted.rekey(to: EncryptedStore.otherCipher)
        try await encrypted.close()
        // Nothing sealed under the old key is left: every journal and snapshot is new.
        let rekeyed = try EncryptedStore.files(at: directory.storePath)
        for (name, bytes) in rekeyed where name.hasPrefix("journal.") || name.hasPrefix("snapshot.") {
            #expect(sealedUnderOldKey[name] == nil, "\(name) \(bytes.count)")
        }
        let wrong = await #expect(throws: JournalError.self) { _ = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher) }
        #expect(wrong?.code == .wrongKey)

        let other = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.otherCipher)
        #expect(try await Self.count(other) == 7)
        try await other.rekey(to: nil)
        try await other.close()
        let plain = try await EncryptedStore.open(directory.storePath, cipher: nil)
        #expect(try await Self.count(plain) == 7)
        #expect(try await plain.read(table: "T", id: "i3") == EncryptedStoreTests.item("i3", 3))
        try await plain.close()
    }

    /// Encrypting stops after the switch (its overwrite of the old plaintext files fails, as a crash there would
    /// leave them): the next open overwrites each old file with zeros before it deletes it.
    @Test func theOldFilesThatAnEncryptionLeftAreOverwrittenWithZerosByTheNextOpen() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let store = try await EncryptedStore.open(directory.storePath, cipher: nil, fileSystem: fileSystem)
        try await Self.fill(store)
        fileSystem.fail(.write, errno: 5, pathContains: ".2.")
        await #expect(throws: JournalError.self) { try await store.rekey(to: EncryptedStore.cipher) }
        try await store.close()
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.storePath)
            .filter { $0.hasPrefix("journal.2") || $0.hasPrefix("snapshot.2") }.sorted()
        #expect(leftovers == ["journal.2.jsonl", "snapshot.2.json", "snapshot.2.lookup"], "the plaintext snapshot's lookup file too")
        #expect(try EncryptedStore.leaks(of: Self.secret, at: directory.storePath) != [])

        let opening = FaultInjectingFileSystem()
        let reopened = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher, fileSystem: opening)
        #expect(try await Self.count(reopened) == 6)
        try await reopened.close()
        for name in leftovers {
            let path = directory.storePath + "/" + name
            let steps = opening.mutations.filter { $0.hasSuffix(" " + path) }
            #expect(steps.first == "write \(path)" && steps.last == "remove \(path)", "\(name): \(steps)")
        }
        #expect(try EncryptedStore.leaks(of: Self.secret, at: directory.storePath) == [])
    }

    @Test(arguments: ["snapshot.3.json.tmp", "journal.3.jsonl", "CURRENT.tmp"])
    func aFailedWriteBeforeTheSwitchLeavesTheStoreUnderTheOldKeyAndUsable(failing path: String) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let store = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher, fileSystem: fileSystem)
        try await Self.fill(store)
        fileSystem.fail(.write, errno: 28, pathContains: path)
        await #expect(throws: JournalError.self) { try await store.rekey(to: EncryptedStore.otherCipher) }
        try await store.apply([.upsert(table: "T", items: [EncryptedStoreTests.item("later", 2)])])
        try await store.close()
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.storePath)
        #expect(!names.contains { $0.contains(".3.") }, "\(names)")
        let reopened = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher)
        #expect(try await Self.count(reopened) == 7)
        try await reopened.close()
    }

    @Test func appliesWaitingDuringARekeyAreSealedUnderTheNewKey() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher) { $0.durability = .grouped }
        try await Self.fill(store)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await store.rekey(to: EncryptedStore.otherCipher) }
            for n in 0..<8 {
                group.addTask { try await store.apply([.upsert(table: "T", items: [EncryptedStoreTests.item("c\(n)", n)])]) }
            }
            try await group.waitForAll()
        }
        try await store.close()
        let reopened = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.otherCipher)
        #expect(try await Self.count(reopened) == 14)
        try await reopened.close()
    }
}
