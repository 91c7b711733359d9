import Testing
import OfflineSync

/// A store's refusal says its kind as a code, the table and a sentence; a query's own error stays reachable.
struct DataSourceErrorTests {
    @Test func aRefusedBatchCarriesItsCodeAndTable() async throws {
        let store = InMemoryDataSource()
        let error = try await #require(throws: DataSourceError.self) {
            try await store.apply([.upsert(table: "T", items: [["id": "a/b"]])])
        }
        #expect(error.code == .invalidID && error.table == "T")
        #expect(error.description.contains("\"a/b\""))
        #expect(try await store.read(table: "T", id: "a") == nil, "nothing was applied")
    }

    @Test func aRefusedQueryCarriesTheQueryError() async throws {
        let error = try await #require(throws: DataSourceError.self) {
            try await InMemoryDataSource().read(Query(table: "T", skip: -1))
        }
        #expect(error.code == .invalidQuery)
        #expect(error.queryError == .negativeSkip(-1))
    }
}
