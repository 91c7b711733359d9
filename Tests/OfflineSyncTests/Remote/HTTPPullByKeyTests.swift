import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// An incremental pull over HTTP, in both dialects, pages by key: rows that share one `updatedAt` and change on the
/// server between page requests are neither skipped nor left stale.
@Suite(.serialized)
struct HTTPPullByKeyTests {
    static let table = "TodoItem"

    /// `r000` to `r299`, each at its own millisecond, then `r040` to `r259` given one `updatedAt` by a bulk update:
    /// a run of 220 equal timestamps, longer than four pages of 50.
    private static func seedRun(_ server: TableProtocolServer) {
        server.seed((0..<300).map { ["id": .string(String(format: "r%03d", $0)), "n": .int(Int64($0))] }, table: table)
        server.batchUpdate(ids: (40..<260).map { String(format: "r%03d", $0) }, table: table, fields: ["bulk": true])
    }

    private static func context(_ server: TableProtocolServer, _ version: APIVersion) -> SyncContext {
        let remote = HTTPRemote(baseURL: server.baseURL, apiVersion: version,
                                configuration: HTTPRemoteConfiguration(timeout: .seconds(20)))
        return SyncContext(dataSource: InMemoryDataSource(), remote: remote)
    }

    /// The store's rows, and the server's live rows, by id.
    private static func rows(_ context: SyncContext) async throws -> [String: JSONObject] {
        let items = try await context.table(table).read(Query(table: table)).items
        return Dictionary(uniqueKeysWithValues: items.compactMap { row in row["id"]?.stringValue.map { ($0, row) } })
    }

    private static func liveRows(_ server: TableProtocolServer) -> [String: JSONObject] {
        Dictionary(uniqueKeysWithValues: server.rows(table).values.compactMap { row in
            row["deleted"] == true ? nil : row["id"]?.stringValue.map { ($0, row) }
        })
    }

    /// The ids whose live row the store lacks or holds in another version, and those it holds but the server does not.
    private static func missingOrStale(_ local: [String: JSONObject], _ live: [String: JSONObject]) -> [String] {
        (live.filter { local[$0.key] != $0.value }.keys + local.keys.filter { live[$0] == nil }).sorted()
    }

    private static func settings(inFlight: Int) -> PullSettings {
        var settings = PullSettings(pageSize: 50)
        settings.maximumConcurrentRequests = inFlight
        return settings
    }

    /// Before each page request after the second, another client edits the earliest row of the run it has not edited
    /// yet (rows the device has already stored): each leaves the run for the end of the order. Paging by position
    /// skipped the row after each page boundary inside the run, and the next pull did not bring it either.
    @Test(arguments: [APIVersion.v2, .v3], [1, 4])
    func rowsOfARunChangedBetweenPageRequestsAreAllStored(_ version: APIVersion, _ inFlight: Int) async throws {
        let server = try TableProtocolServer(version: version, pageSize: 50)
        defer { server.stop() }
        Self.seedRun(server)
        server.editBeforeEachRead { read in (2..<10).contains(read) ? [String(format: "r%03d", 38 + read)] : [] }
        let context = Self.context(server, version)
        try await context.table(Self.table).pull(queryId: "all", settings: Self.settings(inFlight: inFlight))
        server.editBeforeEachRead { _ in [] }
        try await context.table(Self.table).pull(queryId: "all", settings: Self.settings(inFlight: inFlight))
        let local = try await Self.rows(context), live = Self.liveRows(server)
        #expect(local.count == 300)
        #expect(Self.missingOrStale(local, live).isEmpty, "missing or stale: \(Self.missingOrStale(local, live))")
        #expect(live.values.filter { $0["edited"] != nil }.count == 8)
    }

    /// The run is made by a bulk update after a first pull; a second pull meets the same edits between its pages and
    /// must bring every row's newest version.
    @Test(arguments: [APIVersion.v2, .v3], [1, 4])
    func aRunMadeAfterTheFirstPullArrivesWhole(_ version: APIVersion, _ inFlight: Int) async throws {
        let server = try TableProtocolServer(version: version, pageSize: 50)
        defer { server.stop() }
        server.seed((0..<300).map { ["id": .string(String(format: "r%03d", $0))] }, table: Self.table)
        let context = Self.context(server, version)
        try await context.table(Self.table).pull(queryId: "all", settings: Self.settings(inFlight: inFlight))
        server.batchUpdate(ids: (40..<260).map { String(format: "r%03d", $0) }, table: Self.table, fields: ["bulk": true])
        server.editBeforeEachRead { read in (1..<9).contains(read) ? [String(format: "r%03d", 39 + read)] : [] }
        try await context.table(Self.table).pull(queryId: "all", settings: Self.settings(inFlight: inFlight))
        server.editBeforeEachRead { _ in [] }
        try await context.table(Self.table).pull(queryId: "all", settings: Self.settings(inFlight: inFlight))
        let local = try await Self.rows(context), live = Self.liveRows(server)
        #expect(Self.missingOrStale(local, live).isEmpty, "missing or stale: \(Self.missingOrStale(local, live))")
    }

    /// Ties across page boundaries with nothing changing: every row arrives once, and the next pull reads nothing.
    @Test(arguments: [APIVersion.v2, .v3])
    func tiesAcrossPageBoundariesArriveOnceEach(_ version: APIVersion) async throws {
        let server = try TableProtocolServer(version: version, pageSize: 50)
        defer { server.stop() }
        Self.seedRun(server)
        let context = Self.context(server, version)
        let progress = await context.progressUpdates()
        try await context.table(Self.table).pull(queryId: "all", settings: Self.settings(inFlight: 1))
        var received = 0
        for await report in progress where report.phase == .finished {
            received = report.completed
            break
        }
        #expect(received == 300, "each record is received once")
        #expect(Self.missingOrStale(try await Self.rows(context), Self.liveRows(server)).isEmpty)
        let before = server.requests.count
        try await context.table(Self.table).pull(queryId: "all", settings: Self.settings(inFlight: 1))
        #expect(server.requests.count == before + 1, "the next pull asks once, after the last row, and ends")
    }

    /// A server that orders ids case-insensitively (SQL Server's default collation): the pull compares no ids itself,
    /// so every row arrives, whatever the casing.
    @Test(arguments: [APIVersion.v2, .v3])
    func idsThatCompareDifferentlyByCaseArePagedByTheServersOrder(_ version: APIVersion) async throws {
        let server = try TableProtocolServer(version: version, pageSize: 3, idOrder: .caseInsensitive)
        defer { server.stop() }
        let ids = ["a", "B", "c", "D", "e", "F", "g", "H", "i", "J"]
        server.seed(ids.map { ["id": .string($0)] }, table: Self.table)
        server.batchUpdate(ids: ids, table: Self.table, fields: [:])
        let context = Self.context(server, version)
        try await context.table(Self.table).pull(queryId: "all", settings: PullSettings(pageSize: 3))
        #expect(try await Self.rows(context).keys.sorted() == ids.sorted())
    }

    /// A token an earlier version stored (an instant without an id) asks for every record at that instant once,
    /// then pages by key.
    @Test func aTokenOfAnEarlierVersionStillWorks() async throws {
        let server = try TableProtocolServer(version: .v2, pageSize: 50)
        defer { server.stop() }
        Self.seedRun(server)
        let store = InMemoryDataSource()
        let run = try #require(server.rows(Self.table)["r040"]?["updatedAt"]?.stringValue)
        try await store.apply([.upsert(table: EngineTables.config, items: [[
            "id": .string(DeltaTokenStore.rowID(table: Self.table, queryId: "all")), "kind": "deltaToken",
            "table": .string(Self.table), "queryId": "all", "value": .string(run),
            "filterDigest": .string(DeltaTokenStore.filterDigest(nil)),
        ]])])
        let remote = HTTPRemote(baseURL: server.baseURL, apiVersion: .v2)
        let context = SyncContext(dataSource: store, remote: remote)
        try await context.table(Self.table).pull(queryId: "all", settings: Self.settings(inFlight: 1))
        #expect(server.requests.first?.contains("updatedAt%20ge%20datetimeoffset") == true)
        #expect(server.requests.dropFirst().allSatisfy { $0.contains("%20or%20") })
        #expect(try await Self.rows(context).count == 220)
        #expect(try await context.deltaTokens().first?.afterId == "r259")
    }
}
