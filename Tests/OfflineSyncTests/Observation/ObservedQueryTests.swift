import Observation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// `ObservedQuery`: an `@Observable` model of a query's elements and the sync status.
@MainActor
struct ObservedQueryTests {
    struct Todo: Codable, Sendable { var id: String?; var text: String }

    @Test func itFollowsTheQueryAndTheStatusAndTellsObservationTracking() async throws {
        let fixture = try await EngineFixture(.inMemory)
        let todos = fixture.context.table(Todo.self, name: "TodoItem")
        let model = ObservedQuery(todos, Query(table: "TodoItem", orderBy: [.ascending("text")]))
        let running = Task { await model.run() }
        #expect(await eventually { model.hasResult })
        #expect(model.elements.isEmpty)

        let changed = AsyncStream<Void>.makeStream()
        withObservationTracking { _ = model.elements } onChange: { changed.continuation.yield() }
        try await todos.insert(Todo(id: "1", text: "milk"))
        for await _ in changed.stream { break }
        #expect(await eventually { model.elements.map(\.text) == ["milk"] })
        #expect(await eventually { model.status.pendingOperations == 1 })

        try await fixture.context.push()
        #expect(await eventually { model.status.pendingOperations == 0 && model.status.lastSyncCompleted != nil })
        running.cancel()
        await running.value
    }

    @Test func anUntypedModelHoldsItemsAndAFailedQueryItsError() async throws {
        let fixture = try await EngineFixture(.inMemory)
        try await fixture.todo.insert(["id": "a"])
        let model = ObservedQuery(fixture.todo, Query(table: "TodoItem"))
        let running = Task { await model.run() }
        #expect(await eventually { model.elements.map { $0["id"] } == ["a"] })
        running.cancel()
        await running.value

        let failing = ObservedQuery(fixture.todo, Query(table: "Other"))
        await failing.run()
        #expect(failing.error as? SyncError == .queryTableMismatch(table: "TodoItem", queryTable: "Other"))
    }
}
