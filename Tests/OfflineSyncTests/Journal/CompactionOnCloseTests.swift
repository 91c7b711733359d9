import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Closing a store whose journal holds 1 MiB or more compacts it (as SQLite checkpoints its log on the last
/// close), so the next open reads one snapshot; nothing is lost either way.
struct CompactionOnCloseTests {
    static func fill(_ store: JournalDataSource, bytes: Int) async throws {
        let text = String(repeating: "x", count: 1_000)
        var index = 0
        while index * 1_000 < bytes {
            try await store.apply([.upsert(table: "T", items: (0..<50).map { ["id": .string("i\(index + $0)"), "text": .string(text)] })])
            index += 50
        }
    }

    @Test(arguments: [true, false])
    func aLargeJournalIsCompactedOnCloseOnlyWithAutomaticCompaction(_ automatic: Bool) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = JournalOptions(durability: .buffered)
        options.automaticCompaction = automatic
        options.compactionMinimumBytes = 64 << 20  // nothing compacts while writing
        let store = try await JournalDataSource(directory: directory.store, options: options)
        try await Self.fill(store, bytes: 1_200_000)
        #expect(await store.statistics().snapshotBytes == 0)
        try await store.close()
        let reopened = try await JournalDataSource(directory: directory.store, options: options)
        let statistics = await reopened.statistics()
        #expect((statistics.snapshotBytes > 0) == automatic)
        #expect((statistics.journalRecords == 0) == automatic)
        #expect(statistics.tables["T"] == 1_200)
        #expect(try await reopened.read(table: "T", id: "I1199")?["text"]?.stringValue?.count == 1_000)
        try await reopened.close()
    }

    @Test func aSmallJournalIsLeftAsItIs() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource(directory: directory.store, options: JournalOptions(durability: .buffered))
        try await Self.fill(store, bytes: 100_000)
        try await store.close()
        let reopened = try await JournalDataSource(directory: directory.store, options: JournalOptions(durability: .buffered))
        #expect(await reopened.statistics().snapshotBytes == 0)
        #expect(await reopened.statistics().tables["T"] == 100)
        try await reopened.close()
    }
}
