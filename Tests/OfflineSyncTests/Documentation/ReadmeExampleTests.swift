import Testing
import OfflineSync

/// Keeps the README's code examples compiling and true.
struct ReadmeExampleTests {
    @Test func localStoreQuickStartWorks() async throws {
        let store = InMemoryDataSource()
        try await store.apply([
            .upsert(table: "TodoItem", items: [
                ["id": "1", "text": "buy milk", "complete": false, "priority": 2],
                ["id": "2", "text": "renew passport", "complete": true, "priority": 5],
            ]),
        ])
        let open = try await store.read(Query(table: "TodoItem", filter: Field("complete") == false,
                                              orderBy: [.descending("priority")]))
        #expect(open.items.map { $0["id"] } == ["1"])
    }
}
