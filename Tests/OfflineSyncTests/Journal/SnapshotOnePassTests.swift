import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
import OfflineSync
import OfflineSyncTesting

/// A sealed snapshot is checked as it is parsed, in one pass (``SnapshotStreamCheck``); a plaintext one in two. Both
/// must load the same tables from a sound file and report the same error for a damaged one, whatever the damage:
/// here the same plaintext, damaged in many ways (with its checksum left stale or made to match), is read both ways.
struct SnapshotOnePassTests {
    /// `bytes` read in one pass: as through a sealed file's authenticated source.
    static func readInOnePass(_ bytes: [UInt8], path: String) async throws(JournalError) -> SnapshotContents {
        let plain = SnapshotSource(bytes: bytes)
        let source = SnapshotSource(count: bytes.count, isAuthenticated: true) { buffer, offset throws(JournalError) in
            let read = try plain.read(offset..<(offset + buffer.count))
            read.withUnsafeBytes { buffer.copyMemory(from: $0) }
            return read.count
        }
        return try await SnapshotReader.read(source, path: path)
    }

    /// What reading a snapshot gave: the header's figures and every table's items, or the error.
    enum Outcome: Equatable, CustomStringConvertible {
        case loaded(header: String, tables: [String: [JSONObject]])
        case failed(String)

        var description: String {
            switch self {
            case .loaded(let header, let tables): "\(header), \(tables.mapValues(\.count))"
            case .failed(let error): error
            }
        }
    }

    static func outcome(_ read: () async throws(JournalError) -> SnapshotContents) async -> Outcome {
        do throws(JournalError) {
            let contents = try await read()
            var tables: [String: [JSONObject]] = [:]
            for table in contents.tables.tableNames {
                tables[table] = (try? contents.tables.read(Query(table: table, orderBy: [.ascending("id")])))?.items
            }
            return .loaded(header: "g\(contents.generation) s\(contents.lastSequence) n\(contents.itemCount)", tables: tables)
        } catch {
            return .failed("\(error)")
        }
    }

    /// A snapshot of several tables, some items larger than a block of lines, written by a compaction.
    static func snapshotBytes() async throws -> (bytes: [UInt8], path: String) {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath)
        let text = String(repeating: "x", count: 300)
        try await store.apply([.upsert(table: "T", items: (0..<3_000).map { ["id": .string("i\($0)"), "text": .string(text), "n": .int(Int64($0))] })])
        try await store.apply([.upsert(table: "Big", items: [["id": "b", "text": .string(String(repeating: "y", count: 700_000))]])])
        try await store.apply([.upsert(table: "A", items: (0..<5).map { ["id": .string("a\($0)")] })])
        try await store.compact()
        try await store.close()
        let path = directory.storePath + "/snapshot.2.json"
        return (try fileBytes(path), path)
    }

    /// `bytes` with the trailer's checksum made to match the lines before it (`bytes` ends with a trailer line).
    static func withMatchingChecksum(_ bytes: [UInt8]) -> [UInt8] {
        let trailerStart = (bytes.dropLast().lastIndex(of: 0x0A) ?? -1) + 1
        let checksum = CRC32C.checksum(Array(bytes[..<trailerStart]))
        return Array(bytes[..<trailerStart]) + Array((SnapshotWriter.trailerOpening + LineFraming.hex(checksum) + "\"}\n").utf8)
    }

    @Test func aSoundSnapshotLoadsTheSameTablesInOnePassAsInTwo() async throws {
        let (bytes, path) = try await Self.snapshotBytes()
        let twoPasses = await Self.outcome { () throws(JournalError) in try await SnapshotReader.read(bytes, path: path) }
        #expect(twoPasses.description.hasPrefix("g2 s3 n3006"))
        #expect(await Self.outcome { () throws(JournalError) in try await Self.readInOnePass(bytes, path: path) } == twoPasses)
    }

    @Test func everyDamageIsReportedTheSameInOnePassAsInTwo() async throws {
        let (bytes, path) = try await Self.snapshotBytes()
        var generator = SplitMix64(seed: 7)
        let lineStarts = [0] + bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }.dropLast()
        var damaged: [(String, [UInt8])] = []
        for round in 0..<40 {
            var copy = bytes
            let position = Int.random(in: 0..<bytes.count, using: &generator)
            switch round % 5 {
            case 0: copy[position] ^= 1 << UInt8.random(in: 0..<8, using: &generator)
            case 1: copy[position] = 0x0A
            case 2: copy.insert(UInt8(ascii: "{"), at: position)
            case 3:
                // A whole line removed.
                let line = Int.random(in: 0..<(lineStarts.count - 1), using: &generator)
                copy.removeSubrange(lineStarts[line]..<lineStarts[line + 1])
            default: copy.removeSubrange(position...)
            }
            damaged.append(("round \(round)", copy))
            // The same damage with a checksum that matches: only the line checks can find it.
            if copy.last == 0x0A { damaged.append(("round \(round), checksum made to match", Self.withMatchingChecksum(copy))) }
        }
        var faultsBehindAMatchingChecksum = 0
        for (name, copy) in damaged {
            let twoPasses = await Self.outcome { () throws(JournalError) in try await SnapshotReader.read(copy, path: path) }
            let onePass = await Self.outcome { () throws(JournalError) in try await Self.readInOnePass(copy, path: path) }
            #expect(onePass == twoPasses, "\(name)")
            if case .failed(let error) = twoPasses, !error.contains("checksum mismatch") { faultsBehindAMatchingChecksum += 1 }
        }
        #expect(faultsBehindAMatchingChecksum >= 10, "the damage reaches the line checks, not only the checksum")
    }
}
