import Testing
import OfflineSync
import OfflineSyncTesting

/// Keeps the example of the DocC article "Testing with InMemoryRemote" compiling and true: the same code.
struct DocCArticleExampleTests {
    @Test func aWriteMadeOfflineReachesTheServer() async throws {
        let remote = InMemoryRemote()
        let context = SyncContext(dataSource: InMemoryDataSource(), remote: remote)
        let todos = context.table("TodoItem")

        await remote.setOffline(true)
        try await todos.insert(["id": "1", "text": "buy milk"])
        await #expect(throws: PushError.self) { try await context.push() }
        #expect(try await context.pendingOperations().count == 1)

        await remote.setOffline(false)
        try await context.push()
        #expect(await remote.item(id: "1", table: "TodoItem")?["text"] == "buy milk")
    }
}
