import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// A file of the store that cannot be read (EIO, EACCES, …) is a failing disk, not damage, and a file of a newer
/// format is a newer OfflineSync's: open, verify and repair throw the error and change nothing, so that no repair
/// ever moves good data aside over a transient error or a version mismatch.
struct ReadErrorTests {
    enum File: String, CaseIterable, Sendable { case manifest = "CURRENT", snapshot, journal }

    /// A closed store with batches 1 and 2 in a snapshot and batch 3 in the journal after it.
    private func makeStore(_ directory: TemporaryDirectory) async throws -> [String: [UInt8]] {
        let store = try await JournalDataSource.open(directory.storePath)
        try await store.apply(Sample.batch(1))
        try await store.apply(Sample.batch(2))
        try await store.compact()
        try await store.apply(Sample.batch(3))
        try await store.close()
        return try files(directory)
    }

    private func files(_ directory: TemporaryDirectory) throws -> [String: [UInt8]] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.storePath)
        return try Dictionary(uniqueKeysWithValues: names.map { ($0, try fileBytes(directory.storePath + "/" + $0)) })
    }

    /// A store made by ``makeStore(_:)`` (its files returned), and a file system whose next read of `file` fails
    /// with EIO.
    private func storeWithFailingRead(of file: File, in directory: TemporaryDirectory) async throws
        -> (files: [String: [UInt8]], fileSystem: FaultInjectingFileSystem) {
        let before = try await makeStore(directory)
        let fileSystem = FaultInjectingFileSystem()
        fileSystem.fail(.read, errno: 5, pathContains: file.rawValue)
        return (before, fileSystem)
    }

    private func expectIOError(_ error: JournalError, on file: File) {
        #expect(error.code == .io && error.errno == 5, "not the read error: \(error)")
        #expect(error.path?.contains(file.rawValue) == true)
    }

    @Test(arguments: File.allCases)
    func openThrowsTheReadErrorNotCorruption(file: File) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (before, fileSystem) = try await storeWithFailingRead(of: file, in: directory)
        let error = try await #require(throws: JournalError.self) {
            try await JournalDataSource.open(directory.storePath, fileSystem: fileSystem)
        }
        expectIOError(error, on: file)
        #expect(try files(directory) == before, "a failed open changes no file")
        #expect(try await Sample.heldBatches(at: directory.storePath, among: 1...3) == [1, 2, 3])
    }

    @Test(arguments: File.allCases)
    func verifyThrowsTheReadError(file: File) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = try await storeWithFailingRead(of: file, in: directory).fileSystem
        let error = try await #require(throws: JournalError.self) {
            try await JournalDataSource.verify(path: directory.storePath, fileSystem: fileSystem)
        }
        expectIOError(error, on: file)
    }

    @Test(arguments: File.allCases)
    func repairMovesNothingAsideOnAReadError(file: File) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (before, fileSystem) = try await storeWithFailingRead(of: file, in: directory)
        let error = try await #require(throws: JournalError.self) {
            try await JournalDataSource.repair(path: directory.storePath, fileSystem: fileSystem)
        }
        expectIOError(error, on: file)
        #expect(try files(directory) == before, "repair moved or changed files over a read error")
        #expect(try await Sample.heldBatches(at: directory.storePath, among: 1...3) == [1, 2, 3])
    }

    /// Rewrites `name` in the store with its `"format":1` made 2, its checksum made right again.
    private func bumpFormat(of name: String, in directory: TemporaryDirectory) throws {
        let path = directory.storePath + "/" + name
        var bytes = Array(String(decoding: try fileBytes(path), as: UTF8.self)
            .replacingOccurrences(of: #""format":1"#, with: #""format":2"#).utf8)
        if name == "CURRENT" {
            bytes.removeLast()  // the newline, which sealing appends again
            LineFraming.seal(&bytes, lineStart: 0)
        } else {
            // A snapshot: its last line's checksum covers every byte before that line.
            let lastLine = try #require(bytes.dropLast().lastIndex(of: 0x0A)) + 1
            let hex = Array(LineFraming.hex(CRC32C.checksum(Array(bytes[..<lastLine]))).utf8)
            // The line ends with the 8 hex digits, then `"}` and the newline.
            bytes.replaceSubrange((bytes.count - 11)..<(bytes.count - 3), with: hex)
        }
        try writeBytes(bytes, to: path)
    }

    @Test(arguments: ["CURRENT", "snapshot"])
    func aFileOfANewerFormatIsRefusedNotRepaired(file: String) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let names = try await makeStore(directory).keys
        let name = try #require(names.first { $0 == file || ($0.hasPrefix(file + ".") && $0.hasSuffix(".json")) })
        try bumpFormat(of: name, in: directory)
        let before = try files(directory)
        let opening = try await #require(throws: JournalError.self) { try await JournalDataSource.open(directory.storePath) }
        #expect(opening.code == .unsupportedFormat, "\(opening)")
        let repairing = try await #require(throws: JournalError.self) { try await JournalDataSource.repair(directory: directory.store) }
        #expect(repairing.code == .unsupportedFormat, "\(repairing)")
        #expect(try files(directory) == before, "repair touched a store of a newer format")
    }

    @Test func aMissingJournalIsStillDamage() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        _ = try await makeStore(directory)
        let journal = try #require(try files(directory).keys.first { $0.hasPrefix("journal.") && $0.hasSuffix(".jsonl") })
        try FileManager.default.removeItem(atPath: directory.storePath + "/" + journal)
        let verification = try await JournalDataSource.verify(directory: directory.store)
        #expect(verification.problems.first?.message.contains("missing") == true, "\(verification.problems)")
    }
}
