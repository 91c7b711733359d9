import Foundation
import Testing
@testable import OfflineSync

/// A file of the store that cannot be read (EIO, EACCES, …) is a failing disk, not damage: open, verify and repair
/// throw the I/O error and change nothing, so that no repair ever moves good data aside over a transient error.
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

    private func expectIOError(_ error: JournalError, on file: File) {
        #expect(error.code == .io && error.errno == 5, "not the read error: \(error)")
        #expect(error.path?.contains(file.rawValue) == true)
    }

    @Test(arguments: File.allCases)
    func openThrowsTheReadErrorNotCorruption(file: File) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let before = try await makeStore(directory)
        let fileSystem = FaultInjectingFileSystem()
        fileSystem.fail(.read, errno: 5, pathContains: file.rawValue)
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
        _ = try await makeStore(directory)
        let fileSystem = FaultInjectingFileSystem()
        fileSystem.fail(.read, errno: 5, pathContains: file.rawValue)
        let error = try await #require(throws: JournalError.self) {
            try await JournalDataSource.verify(path: directory.storePath, fileSystem: fileSystem)
        }
        expectIOError(error, on: file)
    }

    @Test(arguments: File.allCases)
    func repairMovesNothingAsideOnAReadError(file: File) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let before = try await makeStore(directory)
        let fileSystem = FaultInjectingFileSystem()
        fileSystem.fail(.read, errno: 5, pathContains: file.rawValue)
        let error = try await #require(throws: JournalError.self) {
            try await JournalDataSource.repair(path: directory.storePath, fileSystem: fileSystem)
        }
        expectIOError(error, on: file)
        #expect(try files(directory) == before, "repair moved or changed files over a read error")
        #expect(try await Sample.heldBatches(at: directory.storePath, among: 1...3) == [1, 2, 3])
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
