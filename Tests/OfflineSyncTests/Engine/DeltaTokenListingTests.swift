import Testing
import OfflineSync
import OfflineSyncTesting

struct DeltaTokenListingTests {
    @Test func listsTheTokensOfIncrementalPulls() async throws {
        let remote = InMemoryRemote(pageSize: 10)
        await remote.seed([["id": "a", "text": "x"], ["id": "b", "text": "y"]], table: "TodoItem")
        let context = SyncContext(dataSource: InMemoryDataSource(), remote: remote)
        #expect(try await context.deltaTokens().isEmpty)
        try await context.table("TodoItem").pull(queryId: "all/items")
        try await context.table("TodoItem").pull(Query(table: "TodoItem", filter: Field("text") == "x"), queryId: "x")
        let newest = await remote.items(table: "TodoItem").compactMap { $0["updatedAt"]?.stringValue }.max()
        let tokens = try await context.deltaTokens()
        #expect(tokens.map(\.queryId) == ["all/items", "x"])
        #expect(tokens.allSatisfy { $0.table == "TodoItem" })
        #expect(tokens.first?.updatedAt == newest)
    }
}
