import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

struct JournalConformanceTests {
    /// Runs `check` on a journal store in a fresh directory, opened with `options`.
    private func run(_ check: DataSourceConformance.Check, options: JournalOptions = JournalOptions()) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await check.run { try await JournalDataSource(directory: directory.url, options: options) }
    }

    @Test(arguments: DataSourceConformance.checks)
    func journalDataSourceConforms(_ check: DataSourceConformance.Check) async throws {
        try await run(check)
    }

    @Test(arguments: DataSourceConformance.checks, [Durability.always, .grouped, .buffered])
    func journalDataSourceWritingOnItsOwnThreadConforms(_ check: DataSourceConformance.Check, durability: Durability) async throws {
        var options = JournalOptions(durability: durability)
        options.writeThread = .dedicated
        try await run(check, options: options)
    }

    @Test(arguments: DataSourceConformance.checks)
    func journalDataSourceWithIndexesConforms(_ check: DataSourceConformance.Check) async throws {
        var options = JournalOptions()
        options.indexes = conformanceIndexes
        try await run(check, options: options)
    }

    @Test(arguments: DataSourceConformance.checks)
    func journalDataSourceApplyingEveryBatchWhileWritingItConforms(_ check: DataSourceConformance.Check) async throws {
        var options = JournalOptions()
        options.indexes = conformanceIndexes
        options.applyWhileWritingBytes = 0
        try await run(check, options: options)
    }

    @Test(arguments: DataSourceConformance.checks)
    func journalDataSourceConformsAfterReopening(_ check: DataSourceConformance.Check) async throws {
        // The same checks on a store that was written, closed and opened again (snapshot and journal replay).
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let seed = try await JournalDataSource(directory: directory.url)
        try await seed.apply([.upsert(table: "Seed", items: [["id": "s1"]]), .deleteAll(table: "Seed", matching: nil)])
        try await seed.compact()
        try await seed.apply([.upsert(table: "Other", items: [["id": "o1", "n": 1]])])
        try await seed.close()
        try await check.run { try await JournalDataSource(directory: directory.url) }
    }
}
