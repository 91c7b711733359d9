import Testing
import OfflineSync
import OfflineSyncTesting

struct InMemoryConformanceTests {
    @Test(arguments: DataSourceConformance.checks)
    func inMemoryDataSourceConforms(_ check: DataSourceConformance.Check) async throws {
        try await check.run { InMemoryDataSource() }
    }

    @Test(arguments: DataSourceConformance.checks)
    func inMemoryDataSourceWithIndexesConforms(_ check: DataSourceConformance.Check) async throws {
        try await check.run { InMemoryDataSource(indexes: conformanceIndexes) }
    }

    @Test func conformanceSuiteReportsABrokenStore() async throws {
        // A store that ignores case in nothing: ids are matched exactly. The suite must catch it.
        await #expect(throws: ConformanceFailure.self) {
            try await DataSourceConformance.check { CaseSensitiveStore() }
        }
    }
}

/// Indexes over the tables and fields the conformance checks use, so the planner takes part in every check.
let conformanceIndexes = [
    IndexDefinition(table: "T", fields: ["v"]), IndexDefinition(table: "T", fields: ["n", "s"]),
    IndexDefinition(table: "Q", fields: ["v", "n"]), IndexDefinition(table: "Q", fields: ["flag", "n"]),
    IndexDefinition(table: "Q", fields: ["updatedAt"]), IndexDefinition(table: "A", fields: ["id"]),
]

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
