import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// A pull that fetches pages ahead of storing them, and several queries pulled at once: they store exactly what a
/// one-at-a-time pull stores, skip no record when rows change on the server while it pages, and never move a
/// delta token past a record they did not store.
struct PullAheadTests {
    /// `count` server rows of `table`, each updated at its own millisecond.
    static func seed(_ remote: InMemoryRemote, count: Int, table: String = "TodoItem") async {
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        await remote.seed((0..<count).map { index in
            ["id": .string(String(format: "r%04d", index)), "n": .int(Int64(index)),
             "updatedAt": .string(Timestamp.string(from: start.addingTimeInterval(Double(index) / 1000)))]
        }, table: table)
    }

    /// Each request's latency where a test counts the requests in flight: long enough that a loaded machine still
    /// sends the pages ahead before the first answer comes back.
    static let latency = Duration.milliseconds(50)

    /// Before each read the probe passes on (numbered from 0), another device updates the row `edit` names for that
    /// read, if any, with `fields`; returns the count of reads seen.
    @discardableResult
    static func editBeforeEachRead(_ probe: ProbingRemote, fields: JSONObject,
                                   _ edit: @escaping @Sendable (Int) -> String?) async -> LockedValue<Int> {
        let reads = LockedValue(0)
        await probe.changeRowsBeforeEachRead { server in
            let read = reads.withLock { count in
                defer { count += 1 }
                return count
            }
            guard let id = edit(read) else { return }
            await server.serverUpdate(id: id, table: "TodoItem", fields: fields)
        }
        return reads
    }

    static func stored(_ store: TestStore, table: String = "TodoItem") async throws -> [JSONObject] {
        try await store.dataSource.read(Query(table: table, orderBy: [.ascending("id")])).items
    }

    @Test(arguments: StoreKind.allCases, [nil, "all"] as [String?])
    func pagesAheadStoreWhatAOneAtATimePullStores(_ kind: StoreKind, _ queryId: String?) async throws {
        let remote = InMemoryRemote(pageSize: 50)
        await Self.seed(remote, count: 437)
        let ahead = try await kind.makeStore(), oneByOne = try await kind.makeStore()
        let probe = ProbingRemote(remote)
        await remote.setLatency(Self.latency)
        try await SyncContext(dataSource: ahead.dataSource, remote: probe).table("TodoItem")
            .pull(queryId: queryId, settings: PullSettings(pageSize: 50))
        await remote.setLatency(.zero)
        try await SyncContext(dataSource: oneByOne.dataSource, remote: remote).table("TodoItem")
            .pull(queryId: queryId, settings: PullSettings(pageSize: 50).oneAtATime())
        #expect(try await Self.stored(ahead) == Self.stored(oneByOne))
        #expect(try await Self.stored(ahead).count == 437)
        #expect(await probe.maximumInFlight == 4)
        if let queryId {
            // The pages ahead are asked from the latest accepted page, and at most four pages past the last accepted one
            // are asked for, however the answers arrive: no request skips more than the three pages before it.
            let skips = await remote.requestLog.compactMap(\.query?.skip)
            #expect((skips.max() ?? 0) <= 3 * 49, "skips: \(skips)")
            let tokenAhead = try await DeltaTokenStore.token(table: "TodoItem", queryId: queryId, in: ahead.dataSource)
            #expect(tokenAhead == (try await DeltaTokenStore.token(table: "TodoItem", queryId: queryId, in: oneByOne.dataSource)))
        }
    }

    /// Before each of the first page requests after the first, another device edits the earliest row not edited yet,
    /// which moves it to the end of the `updatedAt` order and shifts every later row one place back: a pull paging by
    /// `skip` alone would skip a row at each such page boundary and move its token past it.
    @Test(arguments: StoreKind.allCases, [false, true])
    func rowsChangingBetweenPageRequestsAreNeverSkipped(_ kind: StoreKind, _ nextLinks: Bool) async throws {
        let remote = InMemoryRemote(pageSize: 20)
        await Self.seed(remote, count: 300)
        let probe = ProbingRemote(remote, nextLinks: nextLinks)
        await Self.editBeforeEachRead(probe, fields: ["edited": true]) { read in read < 8 ? String(format: "r%04d", read) : nil }
        let store = try await kind.makeStore()
        let context = SyncContext(dataSource: store.dataSource, remote: probe)
        try await context.table("TodoItem").pull(queryId: "all", settings: PullSettings(pageSize: nextLinks ? 50 : 20))
        let server = await remote.items(table: "TodoItem")
        let local = try await Self.stored(store)
        #expect(local.count == server.count, "every row was stored, in one version or another")
        let token = try #require(try await DeltaTokenStore.token(table: "TodoItem", queryId: "all", in: store.dataSource))
        let localById = Dictionary(uniqueKeysWithValues: local.compactMap { row in row["id"]?.stringValue.map { ($0, row) } })
        for row in server {
            let updatedAt = try #require(row["updatedAt"]?.stringValue.flatMap(Timestamp.milliseconds(from:)))
            guard updatedAt <= token else { continue }
            // The token says "seen up to here": every row at or before it is stored as the server holds it.
            #expect(localById[row["id"]?.stringValue ?? ""] == row)
        }
        // With the rows at rest, the next pull brings the store level with the server.
        await probe.changeRowsBeforeEachRead { _ in }
        try await context.table("TodoItem").pull(queryId: "all")
        #expect(try await Self.stored(store) == (await remote.items(table: "TodoItem")))
    }

    /// A run of 220 equal timestamps (a bulk import) longer than several pages, rows of the run already stored edited
    /// between page requests: paging by key stores every row, and one more pull brings the store level with the server.
    @Test(arguments: StoreKind.allCases, [1, 4])
    func rowsOfARunOfEqualTimestampsChangingDuringThePullAreNeverSkipped(_ kind: StoreKind, _ inFlight: Int) async throws {
        let remote = InMemoryRemote(pageSize: 50)
        await Self.seed(remote, count: 80)
        let run = Timestamp.string(from: Date(timeIntervalSince1970: 1_767_312_000))
        await remote.seed((80..<300).map { ["id": .string(String(format: "r%04d", $0)), "updatedAt": .string(run)] },
                          table: "TodoItem")
        let probe = ProbingRemote(remote)
        let edited = await Self.editBeforeEachRead(probe, fields: ["edited": true]) { read in
            (1..<9).contains(read) ? String(format: "r%04d", 79 + read) : nil
        }
        let store = try await kind.makeStore()
        let context = SyncContext(dataSource: store.dataSource, remote: probe)
        var settings = PullSettings(pageSize: 50)
        settings.maximumConcurrentRequests = inFlight
        try await context.table("TodoItem").pull(queryId: "all", settings: settings)
        await probe.changeRowsBeforeEachRead { _ in }
        try await context.table("TodoItem").pull(queryId: "all", settings: settings)
        #expect(try await Self.stored(store) == (await remote.items(table: "TodoItem")))
        #expect(edited.withLock { $0 } >= 9, "the rows changed during the first pull")
    }

    /// A full pull of `flag == false` while another device sets the flag of rows the pull already stored: they leave
    /// the result, which shifted every later row one place under a pull by position; a pull by id skips none of the
    /// rows that match throughout, one page at a time or four in flight.
    @Test(arguments: [1, 4])
    func aFullPullMissesNoRowWhenRowsLeaveTheResultMeanwhile(_ inFlight: Int) async throws {
        let remote = InMemoryRemote(pageSize: 20)
        await remote.seed((0..<200).map { ["id": .string(String(format: "r%04d", $0)), "flag": false] }, table: "TodoItem")
        let probe = ProbingRemote(remote)
        await Self.editBeforeEachRead(probe, fields: ["flag": true]) { read in read < 8 ? String(format: "r%04d", read * 2) : nil }
        let store = InMemoryDataSource()
        var settings = PullSettings(pageSize: 20)
        settings.maximumConcurrentRequests = inFlight
        try await SyncContext(dataSource: store, remote: probe).table("TodoItem")
            .pull(Query(table: "TodoItem", filter: Field("flag") == false), settings: settings)
        let stored = Set(try await store.read(Query(table: "TodoItem")).items.compactMap { $0["id"]?.stringValue })
        let matching = await remote.items(table: "TodoItem").filter { $0["flag"] == false }.compactMap { $0["id"]?.stringValue }
        #expect(Set(matching).isSubset(of: stored), "missed: \(Set(matching).subtracting(stored).sorted())")
    }

    @Test(arguments: [false, true])
    func aServerThatSendsSmallerPagesIsPagedAheadByItsOwnPageSize(_ nextLinks: Bool) async throws {
        let remote = InMemoryRemote(pageSize: 30)
        await Self.seed(remote, count: 400)
        let probe = ProbingRemote(remote, nextLinks: nextLinks)
        await remote.setLatency(Self.latency)
        let store = InMemoryDataSource()
        try await SyncContext(dataSource: store, remote: probe).table("TodoItem").pull(settings: PullSettings(pageSize: 100))
        #expect(try await store.read(Query(table: "TodoItem")).items.count == 400)
        let tops = await remote.requestLog.compactMap(\.query?.top)
        #expect(tops.first == 100)
        #expect(tops.filter { $0 == 30 }.count >= 10, "after learning the server's page size the pages ahead ask for it: \(tops)")
        #expect(await probe.maximumInFlight == 4)
    }

    @Test func severalQueriesArePulledTogetherAfterOnePush() async throws {
        let remote = InMemoryRemote(pageSize: 50)
        await Self.seed(remote, count: 120, table: "TodoItem")
        await Self.seed(remote, count: 80, table: "Other")
        let probe = ProbingRemote(remote)
        // Three are in flight only while the incremental query's first page (which goes alone) and the other
        // query's first two pages are all out: a loaded machine once took more than 50 ms to send them.
        await remote.setLatency(.milliseconds(200))
        let store = InMemoryDataSource()
        let context = SyncContext(dataSource: store, remote: probe)
        try await context.table("TodoItem").insert(["id": "local1"])
        try await context.table("Other").insert(["id": "local2"])
        var settings = PullSettings(pageSize: 50)
        settings.maximumConcurrentRequests = 3
        try await context.pull([PullRequest(Query(table: "TodoItem"), queryId: "a"), PullRequest(Query(table: "Other"))],
                               settings: settings)
        let requests = await remote.requests
        #expect(Array(requests.prefix(2)).sorted() == ["POST Other/local2", "POST TodoItem/local1"])
        #expect(requests.dropFirst(2).allSatisfy { $0.hasPrefix("GET") })
        #expect(try await store.read(Query(table: "TodoItem")).items.count == 121)
        #expect(try await store.read(Query(table: "Other")).items.count == 81)
        #expect(await probe.maximumInFlight == 3)
    }

    @Test func aBadRequestAmongSeveralFailsThePullBeforeAnythingIsSent() async throws {
        let remote = InMemoryRemote()
        let context = SyncContext(dataSource: InMemoryDataSource(), remote: remote)
        await #expect(throws: SyncError.self) {
            try await context.pull([PullRequest(Query(table: "TodoItem")), PullRequest(Query(table: "__operations"))])
        }
        #expect(await remote.requests.isEmpty)
    }

    @Test func windowPagesOverlapByOneRecordAndStopAtTheTop() {
        let base = PullPager.Request(skip: 10, top: 50, key: nil)
        let window = PullWindow(base: base, pageSize: 50, remaining: 120, maximumConcurrentRequests: 4)
        #expect(window.request(0) == base)
        #expect(window.request(1) == PullPager.Request(skip: 59, top: 50, key: nil))
        #expect(window.request(2) == PullPager.Request(skip: 108, top: 22, key: nil))
        #expect(window.request(3) == nil)
        #expect(PullWindow(base: base, pageSize: 50, remaining: nil, maximumConcurrentRequests: 1).request(1) == nil)
        #expect(PullWindow.continues([["id": "a"]], after: ["id": "a"]))
        #expect(!PullWindow.continues([["id": "a", "v": 2]], after: ["id": "a", "v": 1]))
        #expect(!PullWindow.continues([], after: ["id": "a"]))
    }
}
