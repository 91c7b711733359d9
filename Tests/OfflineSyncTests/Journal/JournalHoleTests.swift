import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// A hole of unwritten sectors in a journal (what a power loss leaves when the disk wrote a later page back before an
/// earlier one) is a torn tail when no later record says the hole's bytes were durable, and corruption otherwise
/// (Docs/JournalFormat.md, "Opening and recovery").
struct JournalHoleTests {
    /// A closed store whose journal holds batch 1 synced, then for each of `deferred` a deferred batch, then for
    /// each of `synced` a synced one (``PowerLossPageOrderTests/batch(_:)``, about 2 KiB each); returns the journal's
    /// path, its bytes and its line ends (header first).
    private func makeStore(_ directory: TemporaryDirectory, deferred: ClosedRange<Int>, synced: [Int] = []) async throws
        -> (path: String, bytes: [UInt8], ends: [Int]) {
        let store = try await JournalDataSource.open(directory.storePath)
        try await store.apply(PowerLossPageOrderTests.batch(1))
        for n in deferred { try await store.applyDeferringDurability(PowerLossPageOrderTests.batch(n)) }
        for n in synced { try await store.apply(PowerLossPageOrderTests.batch(n)) }
        try await store.close()
        let path = directory.storePath + "/journal.1.jsonl"
        let bytes = try fileBytes(path)
        return (path, bytes, lineEnds(bytes))
    }

    /// `bytes` with zeros from `start` up to the first multiple of 4096 after it: a page that never reached the disk.
    private func losingPage(_ bytes: [UInt8], from start: Int) -> [UInt8] {
        var damaged = bytes
        let end = (start / 4096 + 1) * 4096
        damaged.replaceSubrange(start..<end, with: [UInt8](repeating: 0, count: end - start))
        return damaged
    }

    private func opened(_ directory: TemporaryDirectory) async throws -> [Int] {
        try await Sample.heldBatches(at: directory.storePath, among: 1...8)
    }

    @Test func aHoleAfterTheLastDurableRecordIsCutAsATornTail() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (path, bytes, ends) = try await makeStore(directory, deferred: 2...5)
        let durableEnd = ends[1]  // after batch 1, the last record synced
        #expect(ends.filter { $0 > 4096 }.count >= 2, "complete records follow the lost page")
        try writeBytes(losingPage(bytes, from: durableEnd), to: path)
        let problems = try await JournalDataSource.verify(directory: directory.store).problems
        #expect(problems.count == 1 && problems.first?.message.hasPrefix("torn tail") == true, "\(problems)")
        #expect(try await opened(directory) == [1])
        #expect(try fileBytes(path) == Array(bytes[..<durableEnd]), "the journal is cut at the hole")
    }

    @Test func aHoleInsideARecordAfterTheDurablePointIsCutAtThatRecord() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (path, bytes, ends) = try await makeStore(directory, deferred: 2...8)
        // The page from 8192 on is lost; the record of batch `torn` reaches into it, and complete records follow it.
        let torn = try #require(ends.firstIndex { $0 > 8192 })
        #expect(torn >= 2 && ends.filter { $0 > 12288 }.count >= 2, "complete records follow the lost page")
        try writeBytes(losingPage(bytes, from: 8192), to: path)
        #expect(try await opened(directory) == Array(1..<torn))
        #expect(try fileBytes(path) == Array(bytes[..<ends[torn - 1]]), "the journal is cut where batch \(torn)'s record starts")
    }

    @Test func zerosALaterRecordVouchesForAreCorruption() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // Batch 5's sync made 2…4 durable, so batch 6's record says so.
        let (path, bytes, ends) = try await makeStore(directory, deferred: 2...4, synced: [5, 6])
        let damaged = losingPage(bytes, from: ends[1])
        try writeBytes(damaged, to: path)
        do {
            _ = try await opened(directory)
            Issue.record("opened a journal whose synced records were zeroed")
        } catch let error as JournalError where error.code == .corrupted {
            #expect(error.offset == Int64(ends[1]))
            #expect(error.sequence == 2)
        }
        #expect(try fileBytes(path) == damaged, "open must not change a corrupted journal")
    }

    @Test(arguments: ["bit flip", "zeros not in whole sectors"])
    func damageThatIsNoUnwrittenSectorIsCorruptionEvenAfterTheDurablePoint(kind: String) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (path, bytes, ends) = try await makeStore(directory, deferred: 2...4)
        var damaged = bytes
        if kind == "bit flip" {
            damaged[ends[1] + 40] ^= 0x04
        } else {
            #expect((ends[1] + 10) % 512 != 0)
            damaged.replaceSubrange(ends[1] + 10..<4000, with: [UInt8](repeating: 0, count: 4000 - ends[1] - 10))
        }
        try writeBytes(damaged, to: path)
        await #expect(throws: JournalError.self) { _ = try await opened(directory) }
        #expect(try fileBytes(path) == damaged, "open must not change a corrupted journal")
    }
}
