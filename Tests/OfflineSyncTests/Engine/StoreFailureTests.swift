import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Store failures end the call with the store's error and leave nothing half-written.
struct StoreFailureTests {
    @Test func aFailingReadDuringInsertWritesNothingAndLaterInsertsWork() async throws {
        let store = FailingDataSource()
        let context = SyncContext(dataSource: store, remote: InMemoryRemote())
        await store.setFailingReads(of: "TodoItem")
        await #expect(throws: FailingDataSource.InjectedFailure.self) { try await context.table("TodoItem").insert(["id": "a"]) }
        await store.setFailingReads(of: nil)
        #expect(try await context.pendingOperations().isEmpty)
        try await context.table("TodoItem").insert(["id": "a"])
        #expect(try await context.pendingOperations().count == 1)
    }

    @Test func aFailingQueueReadFailsTheLocalWrite() async throws {
        let store = FailingDataSource()
        let context = SyncContext(dataSource: store, remote: InMemoryRemote())
        await store.setFailingReads(of: "__operations")
        await #expect(throws: FailingDataSource.InjectedFailure.self) { try await context.table("TodoItem").update(["id": "a"]) }
        await store.setFailingReads(of: nil)
        #expect(try await context.table("TodoItem").read(id: "a") == nil)
    }

    @Test func aFailingTokenReadEndsThePullWithTheStoreError() async throws {
        let store = FailingDataSource()
        let remote = InMemoryRemote()
        let context = SyncContext(dataSource: store, remote: remote)
        await store.setFailingReads(of: "__config")
        await #expect(throws: FailingDataSource.InjectedFailure.self) { try await context.table("TodoItem").pull(queryId: "q") }
        #expect(await remote.requests.isEmpty)
        await store.setFailingReads(of: nil)
        try await context.table("TodoItem").pull(queryId: "q")
    }

    @Test func aFailingApplyDuringPushLeavesTheOperationQueued() async throws {
        let store = FailingDataSource()
        let remote = InMemoryRemote()
        let context = SyncContext(dataSource: store, remote: remote)
        try await context.table("TodoItem").insert(["id": "a", "text": "x"])
        await store.setFailing(true)
        await #expect(throws: FailingDataSource.InjectedFailure.self) { try await context.push() }
        await store.setFailing(false)
        // The first apply of a push clears __errors, so nothing was sent; the next push works.
        #expect(try await context.pendingOperations().count == 1)
        #expect(try await context.push().pushed == 1)
    }

    @Test func pullTreatsNullDeletedAsPresentAndIgnoresRecordsWithoutAnId() async throws {
        let store = InMemoryDataSource()
        let remote = CannedRemote(pages: [[["id": "a", "deleted": false], ["id": "b", "deleted": true], ["id": "c", "deleted": nil],
                                           ["text": "no id"], ["id": "bad/id"]]])
        try await store.apply([.upsert(table: "TodoItem", items: [["id": "b"]])])
        let context = SyncContext(dataSource: store, remote: remote)
        try await context.table("TodoItem").pull()
        let ids = try await store.read(Query(table: "TodoItem", orderBy: [.ascending("id")])).items.map(\.["id"])
        #expect(ids == ["a", "c"])
        #expect(await remote.queries.map(\.skip) == [0, 0])
        #expect(await remote.queries.last?.filter == (Field("id") > "bad/id"), "the next page asks after the last id")
    }

    @Test func pullProcessesEveryRecordOfAPageLargerThanTop() async throws {
        let store = InMemoryDataSource()
        let remote = CannedRemote(pages: [(1...5).map { ["id": .string("r\($0)")] }])
        let context = SyncContext(dataSource: store, remote: remote)
        var query = Query(table: "TodoItem")
        query.top = 2
        try await context.table("TodoItem").pull(query)
        #expect(try await store.read(Query(table: "TodoItem")).items.count == 5)
        #expect(await remote.queries.count == 1)
    }

    @Test func anIncrementalPullOfASkipIgnoringServerStillEnds() async throws {
        // Every page repeats the same two records at one timestamp: the page that ends on the key it was asked after
        // goes back to paging that instant by position, and skip grows until an empty page.
        let page: [JSONObject] = [["id": "a", "updatedAt": "2026-01-01T00:00:00.000Z"], ["id": "b", "updatedAt": "2026-01-01T00:00:00.000Z"]]
        let remote = CannedRemote(pages: [page, page, page])
        let context = SyncContext(dataSource: InMemoryDataSource(), remote: remote)
        try await context.table("TodoItem").pull(queryId: "q", settings: PullSettings().oneAtATime())
        #expect(await remote.queries.map(\.skip) == [0, 0, 0, 2])
    }

    @Test func systemPropertiesAreStrippedCaseInsensitivelyAndOthersKept() {
        let item: JSONObject = ["id": "one", "version": "v", "createdAt": "c", "updatedAt": "u", "deleted": false, "__Prop1": 1,
                                "UPDATEDAT": 2, "versions": 3]
        #expect(SystemProperties.removingAll(from: item) == ["id": "one", "__Prop1": 1, "versions": 3])
        #expect(SystemProperties.removingAll(from: ["id": "one"]) == ["id": "one"])
        #expect(SystemProperties.removingAllButVersion(from: item)["version"] == "v")
    }
}
