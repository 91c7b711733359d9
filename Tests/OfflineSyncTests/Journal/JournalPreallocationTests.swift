import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// The zeros the journal writes ahead of its records: how many, where they go, and that every reader takes them
/// for free space.
struct JournalPreallocationTests {
    @Test func zerosAreWrittenOnlyWhenAnAppendPassesThoseAlreadyThere() {
        var extent = JournalExtent(end: 100)
        let zeros = extent.zeros(afterAppending: 50)
        #expect((150 + zeros) % 4096 == 0 && 150 + zeros >= 150 + 65_536)
        extent.appended(50, zeros: zeros, synced: true)
        #expect(extent.end == 150 && extent.allocated == Int64(150 + zeros))
        #expect(extent.zeros(afterAppending: zeros) == 0, "an append that ends exactly at the zeros' end needs none")
        #expect(extent.zeros(afterAppending: zeros + 1) > 0)
    }

    @Test func theZerosAheadGrowWithTheJournalBetween64KiBAnd1MiB() {
        for (end, ahead) in [(0 as Int64, 65_536 as Int64), (400_000, 100_000), (2_000_000, 500_000), (100_000_000, 1 << 20)] {
            let zeros = Int64(JournalExtent(end: end).zeros(afterAppending: 1))
            #expect(zeros >= ahead && zeros < ahead + 4096, "at \(end)")
            #expect((end + 1 + zeros) % 4096 == 0)
        }
    }

    @Test func aFailedAppendOrATrimLeavesNoZerosAhead() {
        var extent = JournalExtent(end: 10, allocated: 8192)
        #expect(extent.zeros(afterAppending: 100) == 0)
        extent.cutBack()
        #expect(extent.allocated == 10)
        #expect(JournalExtent(end: 10, allocated: 4).allocated == 10, "never less than the records")
    }

    @Test func anOpenStoreHasZerosAheadAndCloseCutsThemOff() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath)
        for n in 1...3 { try await store.apply(Sample.batch(n)) }
        let length = Int(await store.statistics().journalBytes)
        let bytes = try fileBytes(directory.storePath + "/journal.1.jsonl")
        #expect(bytes.count >= length + 65_536 && bytes.count % 4096 == 0)
        #expect(bytes[length...].allSatisfy { $0 == 0 })
        #expect(bytes[length - 1] == 0x0A)
        try await store.close()
        #expect(try fileBytes(directory.storePath + "/journal.1.jsonl").count == length)
    }

    @Test func aStoreLeftWithZerosAheadReopensWhole() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let copy = TemporaryDirectory()
        defer { copy.remove() }
        let store = try await JournalDataSource.open(directory.storePath)
        for n in 1...3 { try await store.apply(Sample.batch(n)) }
        // A copy taken while the store is open is what a crash leaves: the zeros ahead stay in the file.
        try FileManager.default.copyItem(at: directory.store, to: copy.store)
        try await store.close()
        #expect(try fileBytes(copy.storePath + "/journal.1.jsonl").last == 0)

        let verification = try await JournalDataSource.verify(directory: copy.store)
        #expect(verification.problems.isEmpty && verification.lastSequence == 3)
        let reopened = try await JournalDataSource.open(copy.storePath)
        for n in 1...3 { #expect(try await Sample.holds(reopened, batch: n)) }
        try await reopened.apply(Sample.batch(4))
        try await reopened.close()
        #expect(try await Sample.heldBatches(at: copy.storePath, among: 1...4) == [1, 2, 3, 4])
        let journal = try fileBytes(copy.storePath + "/journal.1.jsonl")
        #expect(journal.last == 0x0A && lineEnds(journal).count == 5, "batch 4 went right after batch 3, over the zeros")
    }

    @Test func zerosAfterAJournalThatIsNotTheNewestAreFreeSpaceToo() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath)
        for n in 1...2 { try await store.apply(Sample.batch(n)) }
        try await store.close()
        // What a compaction that could not trim the older journal leaves when it stops after naming the newer one.
        let first = directory.storePath + "/journal.1.jsonl"
        try writeBytes(try fileBytes(first) + [UInt8](repeating: 0, count: 8192), to: first)
        let layout = StoreLayout(directory: directory.storePath)
        try writeBytes(JournalRecord.headerLine(generation: 2, baseSequence: 2), to: layout.journalPath(2))
        try Manifest(snapshot: nil, journals: [1, 2]).write(layout, fileSystem: POSIXFileSystem())

        #expect(try await JournalDataSource.verify(directory: directory.store).problems.isEmpty)
        #expect(try await Sample.heldBatches(at: directory.storePath, among: 1...2) == [1, 2])
    }

    @Test func compactionCutsTheZerosOffTheJournalItRetires() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let store = try await JournalDataSource.open(directory.storePath, fileSystem: fileSystem)
        try await store.apply(Sample.batch(1))
        let before = fileSystem.mutations.count
        try await store.compact()
        let compaction = fileSystem.mutations[before...]
        let trim = try #require(compaction.firstIndex(of: "truncate \(directory.storePath)/journal.1.jsonl"))
        let sync = try #require(compaction.firstIndex(of: "sync \(directory.storePath)/journal.1.jsonl"))
        let manifest = try #require(compaction.firstIndex { $0.hasPrefix("rename") && $0.contains("CURRENT") })
        #expect(trim < sync && sync < manifest, "trimmed and synced before the manifest names journal 2")
        try await store.close()
    }
}
