import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// `erase()`: nothing of the previous user is left, and the store is new to any context.
struct EraseTests {
    /// A context whose store holds pulled items with a delta token, pending operations in two tables, an operation
    /// error and a remembered version.
    private func used(_ kind: StoreKind) async throws -> EngineFixture {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "A", "text": "a"], ["id": "B", "text": "b"]], table: "TodoItem")
        try await fixture.todo.pull(queryId: "q")
        try await fixture.todo.update(["id": "A", "text": "changed"])
        try await fixture.context.table("Other").insert(["id": "x"])
        await fixture.remote.failNext(1, with: .server(status: 500, message: "boom"))
        await #expect(throws: PushError.self) { try await fixture.context.push() }
        #expect(try await fixture.context.operationErrors().count == 1)
        try await fixture.context.table("Third").update(["id": "y"])
        return fixture
    }

    @Test(arguments: StoreKind.allCases)
    func eraseRemovesItemsOperationsErrorsAndTokensOfEveryTable(_ kind: StoreKind) async throws {
        var fixture = try await used(kind)
        try await fixture.context.erase()
        for table in ["TodoItem", "Other", "Third", EngineTables.operations, EngineTables.errors, EngineTables.config] {
            #expect(try await fixture.rows(table).isEmpty, "\(table)")
        }
        #expect(try await fixture.context.pendingOperations().isEmpty)
        #expect(try await fixture.context.operationErrors().isEmpty)
        #expect(try await fixture.context.deltaTokens().isEmpty)
        let status = try await fixture.context.status()
        #expect(status.pendingOperations == 0 && status.lastErrorMessage == nil && status.lastSyncCompleted == nil)

        try await fixture.restart()
        #expect(try await fixture.rows("TodoItem").isEmpty)
        #expect(try await fixture.context.pendingOperations().isEmpty)
        // New to a fresh context: operation ids start over, and an incremental pull starts from no token.
        try await fixture.todo.insert(["id": "new"])
        #expect(try await fixture.context.pendingOperations().map(\.id) == [1])
        try await fixture.context.push()
        try await fixture.todo.pull(queryId: "q")
        #expect(try await fixture.rows("TodoItem").compactMap(\.["id"]?.stringValue) == ["A", "B", "new"])
    }

    @Test(arguments: StoreKind.allCases)
    func erasedOperationsAreNeverSent(_ kind: StoreKind) async throws {
        let fixture = try await used(kind)
        await fixture.remote.clearRequests()
        try await fixture.context.erase()
        #expect(try await fixture.context.push().pushed == 0)
        #expect(await fixture.remote.requests.isEmpty)
        #expect(await fixture.remote.items(table: "Third").isEmpty)
        #expect(await fixture.remote.item(id: "A", table: "TodoItem")?["text"] == "a")
    }

    @Test(arguments: StoreKind.allCases)
    func observersAndStatusSeeTheEmptyStore(_ kind: StoreKind) async throws {
        let fixture = try await used(kind)
        var results = fixture.todo.observe(fixture.todo.query()).makeAsyncIterator()
        #expect(try await results.next()?.items.count == 2)
        let pending = try await fixture.context.pendingOperations().count
        #expect(pending == 2)
        // A status stream subscribed before the erase must show the empty queue; a status never published would
        // wait forever, so the watch gives up after 30 s.
        let context = fixture.context
        let (subscribed, subscription) = AsyncStream<Void>.makeStream()
        let watch = Task {
            var statuses = context.statusUpdates().makeAsyncIterator()
            guard await statuses.next()?.pendingOperations == pending else { return false }
            subscription.yield()
            while let status = await statuses.next() {
                if status.pendingOperations == 0 && status.lastErrorMessage == nil { return true }
            }
            return false
        }
        let deadline = Task {
            try await Task.sleep(for: .seconds(30))
            watch.cancel()
            subscription.finish()
        }
        for await _ in subscribed { break }
        try await fixture.context.erase()
        #expect(try await results.next()?.items.isEmpty == true)
        #expect(await watch.value, "the status stream never showed the empty queue")
        deadline.cancel()
    }

    @Test(arguments: StoreKind.allCases)
    func eraseWaitsForARunningPushToEnd(_ kind: StoreKind) async throws {
        let (fixture, suspending) = try await EngineFixture.suspended(kind)
        try await fixture.todo.insert(["id": "a"])
        await suspending.suspendNext(.insert, at: .afterServer)
        let push = await suspending.parked { try await fixture.context.push() }
        let erase = Task { try await fixture.context.erase() }
        await suspending.resume()
        #expect(try await push.value.pushed == 1)
        try await erase.value
        #expect(try await fixture.rows("TodoItem").isEmpty)
        #expect(try await fixture.rows(EngineTables.operations).isEmpty)
        #expect(await fixture.remote.items(table: "TodoItem").count == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func eraseKeepsTheMigrationVersion(_ kind: StoreKind) async throws {
        let fixture = try await used(kind)
        try await fixture.context.migrate([Migration(version: 3, tables: ["TodoItem"]) { _, item in item }])
        try await fixture.context.erase()
        #expect(try await fixture.context.migrationVersion() == 3)
        #expect(try await fixture.rows(EngineTables.config).map(\.["id"]) == [.string(MigrationVersionStore.rowID)])
    }

    @Test func aStoreThatCannotListItsTablesRefusesAndKeepsEverything() async throws {
        let store = FailingDataSource()
        let context = SyncContext(dataSource: store, remote: InMemoryRemote())
        try await context.table("TodoItem").insert(["id": "a"])
        let error = await #expect(throws: DataSourceError.self) { try await context.erase() }
        #expect(error?.code == .unsupported)
        #expect(try await context.pendingOperations().count == 1)
        #expect(try await context.table("TodoItem").read(id: "a") != nil)
    }

    @Test func aFailedEraseLeavesEverythingInPlace() async throws {
        let store = FailingDataSource()
        let context = SyncContext(dataSource: ListingDataSource(store), remote: InMemoryRemote())
        try await context.table("TodoItem").insert(["id": "a"])
        await store.setFailing(true)
        await #expect(throws: FailingDataSource.InjectedFailure.self) { try await context.erase() }
        await store.setFailing(false)
        #expect(try await context.pendingOperations().count == 1)
        #expect(try await context.status().pendingOperations == 1)
        #expect(try await context.table("TodoItem").read(id: "a") != nil)
    }
}

/// A data source over a ``FailingDataSource`` that lists its tables, as `erase()` needs.
struct ListingDataSource: SyncContextDataSource {
    let base: FailingDataSource
    init(_ base: FailingDataSource) { self.base = base }
    func read(table: String, id: String) async throws -> JSONObject? { try await base.read(table: table, id: id) }
    func read(_ query: Query) async throws -> QueryResult { try await base.read(query) }
    func apply(_ changes: [StoreChange]) async throws { try await base.apply(changes) }
    func tableNames() async throws -> [String] { try await base.base.tableNames() }
}
