import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// An incremental pull that reads again behind its token (`PullSettings.lookBack`): a row the server committed late,
/// with an `updatedAt` earlier than rows already pulled, still reaches the device; records read again are not stored
/// again, and the token never moves back.
struct PullLookBackTests {
    static let start = Date(timeIntervalSince1970: 1_767_225_600)

    /// A server whose clock stands one second after ten rows stamped 100 ms apart, and a store that pulled them.
    static func pulledServer(_ kind: StoreKind) async throws -> (InMemoryRemote, TestStore, SyncContext) {
        let remote = InMemoryRemote(pageSize: 50, clock: { start.addingTimeInterval(1) })
        await remote.seed((0..<10).map { index in
            ["id": .string("r\(index)"), "updatedAt": .string(Timestamp.string(from: start.addingTimeInterval(Double(index) / 10)))]
        }, table: "TodoItem")
        let store = try await kind.makeStore()
        let context = SyncContext(dataSource: store.dataSource, remote: remote)
        try await context.table("TodoItem").pull(queryId: "all")
        return (remote, store, context)
    }

    static func settings(lookBack: Duration) -> PullSettings {
        var settings = PullSettings()
        settings.lookBack = lookBack
        return settings
    }

    @Test(arguments: StoreKind.allCases)
    func aRowCommittedLateBehindTheTokenIsPulledWithALookBack(_ kind: StoreKind) async throws {
        let (remote, store, context) = try await Self.pulledServer(kind)
        let token = try await DeltaTokenStore.key(table: "TodoItem", queryId: "all", in: store.dataSource)
        // Stamped at 0.6 s (its statement ran then), committed after r9 (0.9 s) was pulled.
        await remote.serverWrite(id: "late", table: "TodoItem", fields: ["text": "late"], committedLateBy: .milliseconds(400))
        try await context.table("TodoItem").pull(queryId: "all", settings: Self.settings(lookBack: .seconds(1)))
        #expect(try await store.dataSource.read(table: "TodoItem", id: "late")?["text"] == "late")
        #expect(try await DeltaTokenStore.key(table: "TodoItem", queryId: "all", in: store.dataSource) == token,
                "the token stays at the latest record, not the late one")
        // The pull asked for the stretch behind the token: `updatedAt ge` one second before it.
        let filters = await remote.requestLog.compactMap { $0.query?.filter }
        let expected = Field("updatedAt") >= .string(Timestamp.string(from: Self.start.addingTimeInterval(-0.1)))
        #expect(filters.suffix(2).first == expected, "filters: \(filters)")
    }

    /// The defect the look-back mends, as it stands without one.
    @Test func withoutALookBackARowCommittedLateIsNeverPulled() async throws {
        let (remote, store, context) = try await Self.pulledServer(.inMemory)
        await remote.serverWrite(id: "late", table: "TodoItem", fields: ["text": "late"], committedLateBy: .milliseconds(400))
        try await context.table("TodoItem").pull(queryId: "all")
        #expect(try await store.dataSource.read(table: "TodoItem", id: "late") == nil)
    }

    @Test func recordsReadAgainInTheirStoredVersionAreNotStoredAgain() async throws {
        let counting = UpsertRecordingDataSource()
        let remote = InMemoryRemote(pageSize: 4, clock: { Self.start.addingTimeInterval(1) })
        await remote.seed((0..<10).map { index in
            ["id": .string("r\(index)"), "updatedAt": .string(Timestamp.string(from: Self.start.addingTimeInterval(Double(index) / 10)))]
        }, table: "TodoItem")
        let context = SyncContext(dataSource: counting, remote: remote)
        try await context.table("TodoItem").pull(queryId: "all")
        await counting.forget()
        await remote.serverUpdate(id: "r3", table: "TodoItem", fields: ["text": "edited"])
        await remote.serverWrite(id: "late", table: "TodoItem", fields: [:], committedLateBy: .milliseconds(450))
        try await context.table("TodoItem").pull(queryId: "all", settings: Self.settings(lookBack: .seconds(2)))
        // Every row was read again (pages of 4 through the whole stretch); only the late row and the edit are new.
        #expect(await counting.upsertedIds.sorted() == ["late", "r3"])
    }

    /// A token moves only once the pull has read past it: a pull that stops inside the stretch, a page of it stored,
    /// keeps the stored token, and the next one reads the whole stretch again.
    @Test func aPullStoppedInsideTheStretchKeepsItsToken() async throws {
        let remote = InMemoryRemote(pageSize: 50, clock: { Self.start.addingTimeInterval(1) })
        await remote.seed((0..<10).map { index in
            ["id": .string("r\(index)"), "updatedAt": .string(Timestamp.string(from: Self.start.addingTimeInterval(Double(index) / 10)))]
        }, table: "TodoItem")
        let probe = ProbingRemote(remote)
        let store = try await StoreKind.journal.makeStore()
        let context = SyncContext(dataSource: store.dataSource, remote: probe)
        try await context.table("TodoItem").pull(queryId: "all")
        let token = try #require(try await DeltaTokenStore.key(table: "TodoItem", queryId: "all", in: store.dataSource))
        // Stamped at 0.3 s: inside the stretch, after the first page of three (r0, r1, r2).
        await remote.serverWrite(id: "late", table: "TodoItem", fields: [:], committedLateBy: .milliseconds(700))
        let reads = LockedValue(0)
        await probe.changeRowsBeforeEachRead { server in
            let read = reads.withLock { count in
                defer { count += 1 }
                return count
            }
            if read == 1 { await server.failNext(1, with: .network("the answer to the second page is lost")) }
        }
        var settings = Self.settings(lookBack: .seconds(1))
        settings.pageSize = 3
        settings.maximumConcurrentRequests = 1
        await #expect(throws: RemoteError.self) {
            try await context.table("TodoItem").pull(queryId: "all", settings: settings)
        }
        #expect(try await store.dataSource.read(table: "TodoItem", id: "r0") != nil)
        #expect(try await DeltaTokenStore.key(table: "TodoItem", queryId: "all", in: store.dataSource) == token)
        try await context.table("TodoItem").pull(queryId: "all", settings: settings)
        #expect(try await store.dataSource.read(table: "TodoItem", id: "late") != nil)
        #expect(try await DeltaTokenStore.key(table: "TodoItem", queryId: "all", in: store.dataSource) == token)
    }

    @Test func aNegativeLookBackIsRefusedBeforeAnyRequest() async throws {
        let remote = InMemoryRemote()
        let context = SyncContext(dataSource: InMemoryDataSource(), remote: remote)
        await #expect(throws: SyncError.self) {
            try await context.table("TodoItem").pull(queryId: "all", settings: Self.settings(lookBack: .milliseconds(-1)))
        }
        #expect(await remote.requests.isEmpty)
    }

    @Test func theStretchStartsThatFarBehindTheTokenAndEndsAtItsRecord() throws {
        let token = PullKey(updatedAt: 10_000, id: "m")
        let stretch = try #require(PullLookBack(token: token, lookBack: .milliseconds(2_500)))
        #expect(stretch.start == PullKey(updatedAt: 7_500, id: nil))
        #expect(!stretch.isPast(PullKey(updatedAt: 9_999, id: "z")))
        #expect(!stretch.isPast(PullKey(updatedAt: 10_000, id: "a")), "another id at the token's instant may come before it")
        #expect(stretch.isPast(PullKey(updatedAt: 10_000, id: "m")))
        #expect(stretch.isPast(PullKey(updatedAt: 10_001, id: "a")))
        #expect(PullLookBack(token: token, lookBack: .zero) == nil)
        #expect(PullLookBack(token: nil, lookBack: .seconds(1)) == nil)
        #expect(PullLookBack(token: PullKey(updatedAt: 100, id: "a"), lookBack: .seconds(1))?.start.updatedAt == 0)
        #expect(PullLookBack.milliseconds(.microseconds(1)) == 1, "rounded up: never reads less than asked")
        #expect(PullLookBack.milliseconds(.seconds(Int64.max)) == .max)
    }
}

/// An in-memory store that records the ids of `TodoItem` items each `apply` upserts.
actor UpsertRecordingDataSource: SyncContextDataSource {
    let base = InMemoryDataSource()
    private(set) var upsertedIds: [String] = []
    func forget() { upsertedIds = [] }
    func read(table: String, id: String) async throws -> JSONObject? { try await base.read(table: table, id: id) }
    func read(_ query: Query) async throws -> QueryResult { try await base.read(query) }
    func apply(_ changes: [StoreChange]) async throws {
        for case .upsert(let table, let items) in changes where table == "TodoItem" {
            upsertedIds += items.compactMap { $0["id"]?.stringValue }
        }
        try await base.apply(changes)
    }
}
