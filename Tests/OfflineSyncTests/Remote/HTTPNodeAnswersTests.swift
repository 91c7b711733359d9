import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Two answers of the real Node server (azure-mobile-apps 3.0.0) that used to leave the client stuck, as the loopback
/// server gives them with `nodeAnswers`.
@Suite(.serialized)
struct HTTPNodeAnswersTests {
    /// Records the server copy of each conflict, and fails it.
    final class RecordingHandler: ConflictHandler, @unchecked Sendable {
        private let seen = LockedValue<[JSONObject?]>([])
        var serverItems: [JSONObject?] { seen.withLock { $0 } }

        func resolve(_ conflict: SyncConflict) async throws -> ConflictResolution {
            seen.withLock { $0.append(conflict.serverItem) }
            return .fail
        }
    }

    /// An insert of an id the server holds soft-deleted gets 409 with the request echoed, and the by-id read of the row
    /// 404 (that route ignores `__includeDeleted`): the row is read through the list route, and the handler gets it.
    @Test func aConflictWithASoftDeletedRowGivesTheHandlerThatRow() async throws {
        let server = try TableProtocolServer(version: .v2, nodeAnswers: true)
        defer { server.stop() }
        server.seed([["id": "x", "text": "old"]], table: "T")
        let remote = HTTPRemote(baseURL: server.baseURL, apiVersion: .v2)
        try await remote.delete(id: "x", version: nil, table: "T")
        let handler = RecordingHandler()
        let context = SyncContext(dataSource: InMemoryDataSource(), remote: remote, conflictHandler: handler)
        try await context.table("T").insert(["id": "X", "text": "new"])
        await #expect(throws: PushError.self) { _ = try await context.push() }
        let row = try #require(handler.serverItems.first ?? nil)
        #expect(row["deleted"] == true && row["text"] == "old")
        #expect(server.requests.contains { $0.hasPrefix("GET /tables/T/X") })
        #expect(server.requests.contains { $0.hasPrefix("GET /tables/T?$filter=(id%20eq%20'X')") })
        let errors = try await context.operationErrors()
        #expect(errors.first?.serverItem?["deleted"] == true)
    }

    /// `PullSettings(pageSize: 2000)` against a server whose `maxTop` is 1000: the pull asks again with 1000 and brings
    /// every row; the context remembers the size, so its next pull asks for 1000 at once.
    @Test(arguments: [1, 4])
    func aRefusedPageSizeIsAskedAgainWithTheSizeTheServerAllows(_ inFlight: Int) async throws {
        let server = try TableProtocolServer(version: .v2, pageSize: 1000, nodeAnswers: true)
        defer { server.stop() }
        server.seed((0..<2500).map { ["id": .string(String(format: "r%04d", $0))] }, table: "T")
        let context = SyncContext(dataSource: InMemoryDataSource(), remote: HTTPRemote(baseURL: server.baseURL, apiVersion: .v2))
        var settings = PullSettings(pageSize: 2000)
        settings.maximumConcurrentRequests = inFlight
        try await context.table("T").pull(queryId: "all", settings: settings)
        #expect(try await context.table("T").read(Query(table: "T", includeTotalCount: true)).totalCount == 2500)
        #expect(server.requests.filter { $0.contains("$top=2000") }.count == 1, "\(server.requests)")
        let before = server.requests.count
        try await context.table("T").pull(settings: settings)
        #expect(server.requests.dropFirst(before).allSatisfy { !$0.contains("$top=2000") })
        #expect(try await context.table("T").read(Query(table: "T", includeTotalCount: true)).totalCount == 2500)
    }
}
