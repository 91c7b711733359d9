import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Items at and beyond the nesting limit, and the ordering of syncs when a `.buffered` store compacts.
struct JournalItemLimitTests {
    /// An item nested deeper than `JSONReader.maximumDepth` passes `TableSet.validate`, so `apply` acknowledges it;
    /// the journal then cannot read its own record back.
    private static func deepItem(id: String, levels: Int = 520) -> JSONObject {
        var nested: JSONValue = "leaf"
        for _ in 0..<levels { nested = .array([nested]) }
        return ["id": .string(id), "v": nested]
    }

    /// Opens a store in `directory` and applies `deepItem(id: "deep", levels:)`. Returns the open store if the apply
    /// was acknowledged, or nil, with the store closed, if it was rejected: rejected before anything was
    /// acknowledged is fine, and the calling test has nothing more to check.
    private static func storeHoldingDeepItem(in directory: TemporaryDirectory, levels: Int = 520) async throws -> JournalDataSource? {
        let store = try await JournalDataSource.open(directory.storePath)
        do {
            try await store.apply([.upsert(table: "T", items: [deepItem(id: "deep", levels: levels)])])
        } catch {
            try await store.close()
            return nil
        }
        return store
    }

    @Test func aDeeplyNestedItemIsRejectedOrSurvivesAReopenAsTheLastRecord() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        guard let store = try await Self.storeHoldingDeepItem(in: directory) else { return }
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath)
        defer { Task { try? await reopened.close() } }
        #expect(try await reopened.read(table: "T", id: "deep") != nil, "an acknowledged apply vanished on reopen (cut as a torn tail)")
    }

    @Test func aDeeplyNestedItemFollowedByAnotherApplyDoesNotMakeTheStoreUnopenable() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        guard let store = try await Self.storeHoldingDeepItem(in: directory) else { return }
        try await store.apply(Sample.batch(1))
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath)
        #expect(try await Sample.holds(reopened, batch: 1))
        try await reopened.close()
    }

    @Test func aDeeplyNestedItemDoesNotBreakCompaction() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        guard let store = try await Self.storeHoldingDeepItem(in: directory, levels: 515) else { return }
        try await store.compact()
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath)
        #expect(try await reopened.read(table: "T", id: "deep") != nil)
        try await reopened.close()
    }

    /// Whatever depth limit the store chooses, an item it accepts must survive a reopen and a compaction.
    @Test(arguments: [480, 495, 500, 505, 510])
    func anAcceptedNestedItemSurvivesReopenAndCompaction(levels: Int) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        guard let store = try await Self.storeHoldingDeepItem(in: directory, levels: levels) else { return }
        try await store.apply(Sample.batch(1))
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath)
        #expect(try await reopened.read(table: "T", id: "deep") != nil)
        try await reopened.compact()
        try await reopened.close()
        let again = try await JournalDataSource.open(directory.storePath)
        #expect(try await again.read(table: "T", id: "deep") != nil)
        try await again.close()
    }

    /// With `.buffered`, applies to the old journal are not synced. Compaction must sync the old journal before the
    /// manifest names the new one: otherwise a power loss in the window can lose the old journal's tail while the new
    /// journal's header (base sequence) survives, and open then refuses the store as "corrupted" (journal-design.md
    /// §2.17 item 6: with no sync the store must still open, possibly with less data).
    @Test func bufferedCompactionSyncsTheOldJournalBeforeTheManifestNamesTheNewOne() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let store = try await JournalDataSource.open(directory.storePath, durability: .buffered, fileSystem: fileSystem)
        try await store.apply(Sample.batch(1))
        let start = fileSystem.mutations.count
        try await store.compact()
        let log = Array(fileSystem.mutations[start...])
        let manifestSwitch = try #require(log.firstIndex { $0.hasPrefix("rename") && $0.hasSuffix("CURRENT.tmp") })
        #expect(log[..<manifestSwitch].contains { $0.hasPrefix("sync ") && $0.hasSuffix("journal.1.jsonl") },
                "journal.1 holds unsynced applies when CURRENT starts naming journal.2: \(log)")
        try await store.close()
    }
}
