import Testing
import OfflineSync
import OfflineSyncTesting

/// `explain` where apps look: on `SyncTable` and `TypedSyncTable`, through the store, and for a store without a
/// planner of its own.
struct TableExplainTests {
    struct Todo: Codable, Sendable { var id: String?; var complete: Bool; var priority: Int }

    static let index = IndexDefinition(table: "TodoItem", fields: ["complete", "priority"])

    @Test func syncTableAndTypedSyncTableExplainThroughTheStore() async throws {
        let store = InMemoryDataSource(indexes: [Self.index])
        let context = SyncContext(dataSource: store, remote: InMemoryRemote())
        let query = Query(table: "TodoItem", filter: Field("complete") == false, orderBy: [.descending("priority")], top: 3)
        let plan = try await context.table("TodoItem").explain(query)
        #expect(plan.access == .index(Self.index, equalityFields: ["complete"]))
        #expect(plan == (try await store.explain(query)))
        #expect(try await context.table(Todo.self, name: "TodoItem").explain(query) == plan)
        let unindexed = Query(table: "TodoItem", filter: Field("text") == "milk")
        #expect(try await context.table("TodoItem").explain(unindexed).access == .scan)
    }

    @Test func aQueryOfAnotherTableOrAReservedTableIsRefused() async throws {
        let context = SyncContext(dataSource: InMemoryDataSource(indexes: [Self.index]), remote: InMemoryRemote())
        await #expect(throws: SyncError.queryTableMismatch(table: "TodoItem", queryTable: "Other")) {
            try await context.table("TodoItem").explain(Query(table: "Other"))
        }
        await #expect(throws: SyncError.self) { try await context.table("__operations").explain(Query(table: "__operations")) }
        await #expect(throws: DataSourceError.self) { try await context.table("TodoItem").explain(Query(table: "TodoItem", top: -1)) }
    }

    @Test func aStoreWithoutAPlannerReportsAScanAndSaysWhy() async throws {
        let store = PlannerlessStore()
        let plan = try await store.explain(Query(table: "TodoItem", filter: Field("complete") == false))
        #expect(plan.access == .scan)
        #expect(plan.reason.contains("PlannerlessStore has no query planner"))
        let context = SyncContext(dataSource: store, remote: InMemoryRemote())
        #expect(try await context.table("TodoItem").explain(Query(table: "TodoItem")).access == .scan)
        await #expect(throws: DataSourceError.self) { try await store.explain(Query(table: "bad name")) }
        await #expect(throws: DataSourceError.self) { try await store.explain(Query(table: "TodoItem", skip: -1)) }
    }
}

/// A store that answers through an in-memory one but has no `explain` of its own.
private struct PlannerlessStore: SyncContextDataSource {
    let inner = InMemoryDataSource()
    func read(table: String, id: String) async throws -> JSONObject? { try await inner.read(table: table, id: id) }
    func read(_ query: Query) async throws -> QueryResult { try await inner.read(query) }
    func apply(_ changes: [StoreChange]) async throws { try await inner.apply(changes) }
}
