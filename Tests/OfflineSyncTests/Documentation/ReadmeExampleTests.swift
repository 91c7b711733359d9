import Foundation
import Testing
import OfflineSync
import OfflineSyncTesting

/// Keeps the README's quick start compiling and true: the same code, against the in-process back end.
struct ReadmeExampleTests {
    struct TodoItem: Codable, Sendable {
        var id: String?
        var text: String
        var complete = false
        var version: String?
    }

    struct KeepCompletion: ConflictHandler {
        func resolve(_ conflict: SyncConflict) async throws -> ConflictResolution {
            guard var merged = conflict.serverItem, let local = conflict.localItem else { return .fail }
            merged["complete"] = .bool(local["complete"]?.boolValue == true || merged["complete"]?.boolValue == true)
            return .useMerged(merged)
        }
    }

    @Test func quickStartWorks() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        let store = try await JournalDataSource(directory: directory)
        let remote = InMemoryRemote()
        let context = SyncContext(dataSource: store, remote: remote, conflictHandler: KeepCompletion())
        let todos = context.table(TodoItem.self, name: "TodoItem")

        var milk = try await todos.insert(TodoItem(text: "buy milk"))
        milk.complete = true
        try await todos.update(milk)
        #expect(try await context.pendingOperations().count == 1)

        try await context.push()
        try await todos.pull(queryId: "all-todos")
        let open = try await todos.read(Field("complete") == false, orderBy: [.ascending("text")])
        #expect(open.isEmpty)
        #expect(await remote.items(table: "TodoItem").first?["complete"] == true)

        // The conflict handler: the server renamed the item, this device un-completed it; complete wins.
        let id = try #require(milk.id)
        _ = await remote.serverUpdate(id: id, table: "TodoItem", fields: ["text": "buy oat milk"])
        var stale = try #require(try await todos.read(id: id))
        stale.complete = false
        try await todos.update(stale)
        try await context.push()
        let server = await remote.item(id: id, table: "TodoItem")
        #expect(server?["text"] == "buy oat milk")
        #expect(server?["complete"] == true)
        try await store.close()
    }
}
