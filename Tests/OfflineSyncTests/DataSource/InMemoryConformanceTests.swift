import Testing
import OfflineSync
import OfflineSyncTesting

struct InMemoryConformanceTests {
    @Test(arguments: DataSourceConformance.checks)
    func inMemoryDataSourceConforms(_ check: DataSourceConformance.Check) async throws {
        try await check.run { InMemoryDataSource() }
    }

    @Test func conformanceSuiteReportsABrokenStore() async throws {
        // A store that ignores case in nothing: ids are matched exactly. The suite must catch it.
        await #expect(throws: ConformanceFailure.self) {
            try await DataSourceConformance.check { CaseSensitiveStore() }
        }
    }
}

/// A deliberately broken data source: ids match case-sensitively.
private actor CaseSensitiveStore: SyncContextDataSource {
    private let inner = InMemoryDataSource()

    func read(table: String, id: String) async throws -> JSONObject? {
        guard let item = try await inner.read(table: table, id: id), item["id"]?.stringValue == id else { return nil }
        return item
    }

    func read(_ query: Query) async throws -> QueryResult { try await inner.read(query) }

    func apply(_ changes: [StoreChange]) async throws { try await inner.apply(changes) }
}
