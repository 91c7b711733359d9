import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// A migration whose transform builds a new item keeps the input's system properties (`version`, `createdAt`,
/// `updatedAt`, `deleted`), for items, pending operations and bases alike: the next write of the item still carries
/// its `If-Match`, so another client's change meanwhile is a conflict, never overwritten.
struct MigrationSystemPropertiesTests {
    /// v1 → v2 as a new user writes it: a new item from the old one's fields, `title` becoming `text`.
    static let rebuild = Migration(version: 1, tables: ["TodoItem"]) { _, item in
        ["id": item["id"] ?? nil, "text": item["title"] ?? nil]
    }

    /// A device that pulled item "x" (title "buy milk"), with a handler that records conflicts and fails them; the
    /// server's row as pulled.
    private static func pulled(_ kind: StoreKind) async throws -> (EngineFixture, FixedResolution, JSONObject) {
        let handler = FixedResolution(.fail)
        let fixture = try await EngineFixture(kind, handler: handler)
        await fixture.remote.seed([["id": "x", "title": "buy milk"]], table: "TodoItem")
        try await fixture.todo.pull()
        return (fixture, handler, try #require(await fixture.remote.item(id: "x", table: "TodoItem")))
    }

    /// Another client changes "x" on the server, then the device pushes: the push meets a 412 and the server keeps
    /// the other client's text.
    private static func expectConflictOnPush(_ fixture: EngineFixture, _ handler: FixedResolution, pulled: JSONObject,
                                             method: RemoteMethod) async throws {
        _ = await fixture.remote.serverUpdate(id: "x", table: "TodoItem", fields: ["text": "buy bread"])
        _ = try? await fixture.context.push()
        let sent = await fixture.remote.requestLog.filter { $0.method == method && $0.id == "x" }
        #expect(sent.map(\.ifMatch) == [pulled["version"]?.stringValue], "sent with the pulled version as If-Match")
        #expect(await handler.conflicts.map(\.statusCode) == [412])
        let server = try #require(await fixture.remote.item(id: "x", table: "TodoItem"))
        #expect(server["text"] == "buy bread" && server["deleted"] == false, "the other client's change stays: \(server)")
    }

    @Test(arguments: StoreKind.allCases)
    func anItemEditedAfterARebuildingMigrationConflictsWithAServerChange(_ kind: StoreKind) async throws {
        let (fixture, handler, pulled) = try await Self.pulled(kind)
        try await fixture.context.migrate([Self.rebuild])
        let local = try #require(try await fixture.todo.read(id: "x"))
        for name in ["version", "createdAt", "updatedAt", "deleted"] {
            #expect(local[name] != nil && local[name] == pulled[name], "\(name) kept: \(local)")
        }
        var edited = local
        edited["text"] = "buy oat milk"
        try await fixture.todo.update(edited)
        try await Self.expectConflictOnPush(fixture, handler, pulled: pulled, method: .update)
    }

    @Test(arguments: StoreKind.allCases)
    func anUpdateQueuedBeforeARebuildingMigrationConflictsWithAServerChange(_ kind: StoreKind) async throws {
        let (fixture, handler, pulled) = try await Self.pulled(kind)
        var edited = try #require(try await fixture.todo.read(id: "x"))
        edited["title"] = "buy oat milk"
        try await fixture.todo.update(edited)
        try await fixture.context.migrate([Self.rebuild])
        let base = try #require(try await fixture.operations().first?.base)
        #expect(base["version"] == pulled["version"] && base["updatedAt"] == pulled["updatedAt"], "the base keeps them: \(base)")
        #expect(base["text"] == "buy milk")
        try await Self.expectConflictOnPush(fixture, handler, pulled: pulled, method: .update)
    }

    @Test(arguments: StoreKind.allCases)
    func aDeleteQueuedBeforeARebuildingMigrationConflictsWithAServerChange(_ kind: StoreKind) async throws {
        let (fixture, handler, pulled) = try await Self.pulled(kind)
        try await fixture.todo.delete(try #require(try await fixture.todo.read(id: "x")))
        try await fixture.context.migrate([Self.rebuild])
        let snapshot = try #require(try await fixture.operations().first?.item)
        #expect(snapshot["text"] == "buy milk" && snapshot["version"] == pulled["version"], "the snapshot keeps them: \(snapshot)")
        try await Self.expectConflictOnPush(fixture, handler, pulled: pulled, method: .delete)
    }

    /// What a transform sets stays as it set it; what it leaves out comes from its input, step by step.
    @Test func aSystemPropertyTheTransformSetsIsKeptAsSet() throws {
        let setsUpdatedAt = Migration(version: 2, tables: ["T"]) { _, item in
            ["id": item["id"] ?? nil, "updatedAt": "2026-05-05T00:00:00.000Z", "n": item["n"] ?? nil]
        }
        let dropsAll = Migration(version: 3, tables: ["T"]) { _, item in ["n": item["n"] ?? nil] }
        let plan = try MigrationPlan([Self.renameNothing, setsUpdatedAt, dropsAll], storedVersion: 0)
        let item: JSONObject = ["id": "a", "n": 1, "version": "v1", "createdAt": "2026-01-01T00:00:00.000Z",
                                "updatedAt": "2026-01-02T00:00:00.000Z", "deleted": false]
        #expect(try plan.migrated(item, table: "T") == ["id": "a", "n": 1, "version": "v1", "createdAt": "2026-01-01T00:00:00.000Z",
                                                           "updatedAt": "2026-05-05T00:00:00.000Z", "deleted": false])
    }

    static let renameNothing = Migration(version: 1, tables: ["T"]) { _, item in item }
}
