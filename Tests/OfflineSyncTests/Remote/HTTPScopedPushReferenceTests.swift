import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// A pull's push first (`PushFirst.tableOperations`) of a table whose items refer to items of other tables, over
/// HTTP in both dialects: the queued inserts they depend on go first, transitively, and nothing else of those tables.
@Suite(.serialized)
struct HTTPScopedPushReferenceTests {
    /// How the references are made: declared relations on plain field names, or fields named by convention.
    enum Naming: String, CaseIterable, CustomTestStringConvertible {
        case declared, conventional
        var testDescription: String { rawValue }

        /// The field of a `TodoItem` naming its list, and of a `TodoList` naming its project.
        var fields: (list: String, project: String) {
            self == .declared ? ("list", "project") : ("todoListId", "projectId")
        }

        var relations: [TableRelation] {
            guard self == .declared else { return [] }
            return [TableRelation(table: "TodoItem", field: "list", referencedTable: "TodoList"),
                    TableRelation(table: "TodoList", field: "project", referencedTable: "Project")]
        }
    }

    @Test(arguments: [APIVersion.v2, .v3], Naming.allCases)
    func aPullOfTheChildTablePushesTheInsertsItsItemsReferToFirst(_ version: APIVersion, _ naming: Naming) async throws {
        let server = try TableProtocolServer(version: version)
        defer { server.stop() }
        let remote = HTTPRemote(baseURL: server.baseURL, apiVersion: version,
                                configuration: HTTPRemoteConfiguration(timeout: .seconds(20)))
        let context = SyncContext(dataSource: InMemoryDataSource(), remote: remote, relations: naming.relations)
        let fields = naming.fields
        try await context.table("Project").insert(["id": "p1"])
        try await context.table("TodoList").insert(["id": "l1", fields.project: "p1"])
        try await context.table("TodoList").insert(["id": "l2"])
        try await context.table("TodoItem").insert(["id": "i1", fields.list: "l1"])

        try await context.table("TodoItem").pull()

        let writes = server.requests.filter { !$0.hasPrefix("GET") }.map { String($0.split(separator: "?")[0]) }
        // A write the client sent again after a transient failure (a loaded machine) shows twice; the order of their
        // first sending is what the push promises.
        var firstSent: [String] = []
        for write in writes where !firstSent.contains(write) { firstSent.append(write) }
        #expect(firstSent == ["POST /tables/Project", "POST /tables/TodoList", "POST /tables/TodoItem"],
                "the project and the list go first: \(writes)")
        #expect(server.rows("TodoList")["l2"] == nil, "the unrelated list l2 stays queued")
        #expect(server.rows("TodoItem")["i1"]?[fields.list] == "l1")
        #expect(try await context.pendingOperations().map(\.itemId) == ["l2"])
    }
}
