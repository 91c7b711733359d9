import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal

/// Sealed records and snapshot blocks changed on disk are damage, found as the store finds any damage, never opened
/// into a wrong item: even with their checksum made to match, wherever they are in the journal.
struct EncryptedDamageTests {
    /// A closed encrypted store: a snapshot of 20 items (generation 2) and a journal of four records after it.
    static func makeStore(_ directory: TemporaryDirectory) async throws {
        let store = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher)
        for n in 0..<4 { try await store.apply([.upsert(table: "T", items: (0..<5).map { Sample.item("s\(n)-\($0)", Int64(n)) })]) }
        try await store.compact()
        for n in 0..<4 { try await store.apply([.upsert(table: "T", items: [Sample.item("j\(n)", Int64(n))])]) }
        try await store.close()
    }

    /// The journal's lines (without newlines); line 0 is the header.
    static func lines(_ path: String) throws -> [[UInt8]] {
        try fileBytes(path).split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map(Array.init)
    }

    static func write(lines: [[UInt8]], to path: String) throws {
        try writeBytes(lines.flatMap { $0 + [0x0A] }, to: path)
    }

    /// `line` with its checksum made to match its bytes again.
    static func rechecksummed(_ line: [UInt8]) -> [UInt8] {
        var fixed = line
        CRC32C.writeHex(CRC32C.checksum(line, from: LineFraming.prefixLength), into: &fixed, at: 6)
        return fixed
    }

    /// Where the base64 of line's sealed payload starts.
    static func sealedStart(_ line: [UInt8]) -> Int {
        let key = Array(#""e":""#.utf8)
        return (0...(line.count - key.count)).first { Array(line[$0..<($0 + key.count)]) == key }.map { $0 + key.count } ?? 0
    }

    static func openingError(_ directory: TemporaryDirectory) async -> JournalError? {
        await #expect(throws: JournalError.self) { _ = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher) }
    }

    @Test(arguments: [1, 2, 4])
    func aChangedSealedRecordWithAMatchingChecksumIsCorruptionWhereverItIs(record: Int) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await Self.makeStore(directory)
        let path = directory.storePath + "/journal.2.jsonl"
        var lines = try Self.lines(path)
        let position = Self.sealedStart(lines[record]) + 30
        lines[record][position] = lines[record][position] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        lines[record] = Self.rechecksummed(lines[record])
        try Self.write(lines: lines, to: path)
        let before = try EncryptedStore.files(at: directory.storePath)

        let error = await Self.openingError(directory)
        #expect(error?.code == .corrupted, "\(String(describing: error))")
        #expect(error?.reason?.contains("fails authentication") == true)
        #expect(try EncryptedStore.files(at: directory.storePath) == before)
        let verification = try await JournalDataSource.verify(directory: directory.store, cipher: EncryptedStore.cipher)
        #expect(verification.problems.count == 1)
    }

    @Test func recordsSwappedWithTheirSealedPayloadsFailAuthentication() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await Self.makeStore(directory)
        let path = directory.storePath + "/journal.2.jsonl"
        var lines = try Self.lines(path)
        let (first, second) = (lines[1], lines[2])
        lines[1] = Self.rechecksummed(Array(first[..<Self.sealedStart(first)]) + Array(second[Self.sealedStart(second)...]))
        lines[2] = Self.rechecksummed(Array(second[..<Self.sealedStart(second)]) + Array(first[Self.sealedStart(first)...]))
        try Self.write(lines: lines, to: path)
        #expect(await Self.openingError(directory)?.code == .corrupted)
    }

    @Test func aPlaintextRecordInAnEncryptedStoreIsCorruption() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await Self.makeStore(directory)
        let path = directory.storePath + "/journal.2.jsonl"
        var lines = try Self.lines(path)
        var plain: [UInt8] = []
        JournalRecord.appendApply(sequence: 24, generation: 2, payload: Array(#"[{"clear":"T"}]"#.utf8), into: &plain)
        lines[4] = Array(plain.dropLast())
        try Self.write(lines: lines, to: path)
        let error = await Self.openingError(directory)
        #expect(error?.code == .corrupted)
        #expect(try await JournalDataSource.verify(directory: directory.store, cipher: EncryptedStore.cipher).problems.count == 1)
    }

    @Test func aChangedByteInASealedSnapshotIsAnInvalidSnapshot() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await Self.makeStore(directory)
        let path = directory.storePath + "/snapshot.2.json"
        var bytes = try fileBytes(path)
        #expect(bytes.starts(with: Array("OSYNC-SEALED-01\n".utf8)))
        bytes[SealedSnapshotFile.headerBytes + 100] ^= 0x01
        try writeBytes(bytes, to: path)
        let error = await Self.openingError(directory)
        #expect(error?.code == .invalidSnapshot)
        #expect(error?.reason?.contains("fails authentication") == true)
    }

    @Test func aSealedSnapshotCutShortIsAnInvalidSnapshot() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await Self.makeStore(directory)
        let path = directory.storePath + "/snapshot.2.json"
        let bytes = try fileBytes(path)
        try writeBytes(Array(bytes.dropLast(3)), to: path)
        #expect(await Self.openingError(directory)?.code == .invalidSnapshot)
    }

    @Test func aTornSealedTailIsCutOffAsAPlaintextOneIs() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await Self.makeStore(directory)
        let path = directory.storePath + "/journal.2.jsonl"
        let bytes = try fileBytes(path)
        try writeBytes(Array(bytes.dropLast(20)), to: path)
        let store = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher)
        #expect(try await store.read(table: "T", id: "j2") != nil)
        #expect(try await store.read(table: "T", id: "j3") == nil)
        try await store.close()
    }

    /// A rebuild trusts a key that opens a sealed record or block, or that has the identifier the files name.
    @Test func aDamagedManifestIsRebuiltOnlyWithTheStoresKeyAndKeepsItEncrypted() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await Self.makeStore(directory)
        try writeBytes(Array("garbage\n".utf8), to: directory.storePath + "/CURRENT")
        let before = try EncryptedStore.files(at: directory.storePath)
        let withoutKey = await #expect(throws: JournalError.self) { _ = try await JournalDataSource.repair(directory: directory.store) }
        #expect(withoutKey?.code == .encrypted)
        let wrongKey = await #expect(throws: JournalError.self) {
            _ = try await JournalDataSource.repair(directory: directory.store, cipher: EncryptedStore.otherCipher)
        }
        #expect(wrongKey?.code == .wrongKey)
        #expect(try EncryptedStore.files(at: directory.storePath) == before)

        let report = try await JournalDataSource.repair(directory: directory.store, cipher: EncryptedStore.cipher)
        #expect(report.movedAside.map { ($0 as NSString).lastPathComponent } == ["CURRENT.broken"])
        let store = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher)
        #expect(try await store.read(Query(table: "T")).items.count == 24)
        try await store.close()
        await #expect(throws: JournalError.self) { _ = try await EncryptedStore.open(directory.storePath, cipher: nil) }
    }
}
