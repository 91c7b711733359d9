import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// `migrate(_:)` and `migrationVersion()`: items and the queue's copies follow the app's models, all or nothing.
struct MigrationTests {
    /// v1 → v2: `title` becomes `text`.
    static let renameTitle = Migration(version: 1, tables: ["TodoItem"]) { _, item in
        var item = item
        item["text"] = item.removeValue(forKey: "title")
        return item
    }
    /// v2 → v3: `priority` defaults to 0; appends to `log` so that running it twice would show.
    static let addPriority = Migration(version: 2, tables: ["TodoItem"]) { _, item in
        var item = item
        item["priority"] = item["priority"] ?? 0
        item["log"] = .string((item["log"]?.stringValue ?? "") + "2")
        return item
    }

    struct Refused: Error {}

    private func texts(_ fixture: EngineFixture) async throws -> [JSONValue?] {
        try await fixture.rows("TodoItem").map(\.["text"])
    }

    @Test(arguments: StoreKind.allCases)
    func newerMigrationsRunInOrderOnEveryItemAndPendingItemsPushTheNewContent(_ kind: StoreKind) async throws {
        var fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "a", "title": "pulled"], ["id": "b", "title": "edited"]], table: "TodoItem")
        try await fixture.todo.pull()
        try await fixture.todo.update(["id": "b", "title": "edited locally"])
        try await fixture.todo.insert(["id": "c", "title": "new"])
        try await fixture.context.table("Other").insert(["id": "o", "title": "untouched"])
        #expect(try await fixture.context.migrationVersion() == 0)

        try await fixture.context.migrate([Self.addPriority, Self.renameTitle])
        #expect(try await fixture.context.migrationVersion() == 2)
        try await fixture.restart()
        #expect(try await fixture.context.migrationVersion() == 2)
        let rows = try await fixture.rows("TodoItem")
        #expect(rows.map(\.["text"]) == ["pulled", "edited locally", "new"])
        #expect(rows.allSatisfy { $0["title"] == nil && $0["priority"] == 0 && $0["log"] == "2" })
        #expect(try await fixture.rows("Other").first?["title"] == "untouched")
        #expect(try await fixture.operations().map(\.item?["text"]) == ["edited locally", "new", nil])

        try await fixture.context.push()
        #expect(await fixture.remote.item(id: "b", table: "TodoItem")?["text"] == "edited locally")
        #expect(await fixture.remote.item(id: "c", table: "TodoItem")?["text"] == "new")
        #expect(await fixture.remote.item(id: "c", table: "TodoItem")?["priority"] == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func aMigrationRunsOnceAndLaterCallsApplyOnlyNewerOnes(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a", "title": "x"])
        try await fixture.context.migrate([Self.renameTitle, Self.addPriority])
        try await fixture.context.migrate([Self.renameTitle, Self.addPriority])
        #expect(try await fixture.rows("TodoItem").first?["log"] == "2")
        let third = Migration(version: 3, tables: ["TodoItem"]) { _, item in
            var item = item
            item["log"] = .string((item["log"]?.stringValue ?? "") + "3")
            return item
        }
        try await fixture.context.migrate([Self.renameTitle, Self.addPriority, third])
        #expect(try await fixture.rows("TodoItem").first?["log"] == "23")
        #expect(try await fixture.context.migrationVersion() == 3)
    }

    @Test(arguments: StoreKind.allCases)
    func aThrowingTransformLeavesItemsQueueAndVersionAsBefore(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a", "title": "x"])
        try await fixture.todo.insert(["id": "b", "title": "refused"])
        try await fixture.context.migrate([Self.renameTitle])
        let rows = try await fixture.rows("TodoItem"), operations = try await fixture.operations()
        let failing = Migration(version: 2, tables: ["TodoItem"]) { _, item in
            if item["text"] == "refused" { throw Refused() }
            return ["id": item["id"] ?? nil, "text": "changed"]
        }
        let error = await #expect(throws: SyncError.self) { try await fixture.context.migrate([Self.renameTitle, failing]) }
        #expect(error?.code == .migrationFailed && error?.itemId == "b")
        #expect(try await fixture.rows("TodoItem") == rows)
        #expect(try await fixture.operations() == operations)
        #expect(try await fixture.context.migrationVersion() == 1)
    }

    @Test func aThrowingTransformLeavesTheJournalFilesUnchangedByteForByte() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource(directory: directory.store)
        let context = SyncContext(dataSource: store, remote: InMemoryRemote())
        for index in 0..<20 { try await context.table("TodoItem").insert(["id": .string("i\(index)"), "title": "t"]) }
        func files() throws -> [String: [UInt8]] {
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.store.path)
            return try Dictionary(uniqueKeysWithValues: names.map { ($0, try fileBytes(directory.store.appendingPathComponent($0).path)) })
        }
        let before = try files()
        let failing = Migration(version: 1, tables: ["TodoItem"]) { _, item in
            if item["id"] == "i17" { throw Refused() }
            return item
        }
        await #expect(throws: SyncError.self) { try await context.migrate([failing]) }
        #expect(try files() == before)
        try await store.close()
    }

    /// Pulls item "x" (title "server"), updates its title to "mine" and pushes it with the answer lost: the update is
    /// attempted, its server row holds the old shape.
    private func updateWhoseAnswerIsLost(_ kind: StoreKind) async throws -> (EngineFixture, FixedResolution) {
        let handler = FixedResolution(.fail)
        let fixture = try await EngineFixture(kind, handler: handler)
        await fixture.remote.seed([["id": "x", "title": "server"]], table: "TodoItem")
        try await fixture.todo.pull()
        var item = try #require(try await fixture.todo.read(id: "x"))
        item["title"] = "mine"
        try await fixture.todo.update(item)
        await fixture.remote.loseNextResponses(1)
        let lost = await #expect(throws: PushError.self) { try await fixture.context.push() }
        #expect(lost?.reason == .network)
        return (fixture, handler)
    }

    @Test(arguments: StoreKind.allCases)
    func aLostAnswerIsStillRecognisedAfterTheMigration(_ kind: StoreKind) async throws {
        var (fixture, handler) = try await updateWhoseAnswerIsLost(kind)

        try await fixture.context.migrate([Self.renameTitle])
        try await fixture.restart(handler: handler)
        try await fixture.context.push()
        #expect(await handler.conflicts.isEmpty)
        #expect(try await fixture.operations().isEmpty)
        #expect(try await fixture.context.operationErrors().isEmpty)
        #expect(await fixture.remote.item(id: "x", table: "TodoItem")?["text"] == "mine")
        #expect(try await fixture.todo.read(id: "x")?["text"] == "mine")
    }

    @Test(arguments: StoreKind.allCases)
    func anAttemptedDeleteIsStillRecognisedAfterTheMigration(_ kind: StoreKind) async throws {
        let (fixture, handler) = try await updateWhoseAnswerIsLost(kind)
        // The delete folds into the attempted update and carries the version the lost answer would have replaced.
        try await fixture.todo.delete(try #require(try await fixture.todo.read(id: "x")))
        try await fixture.context.migrate([Self.renameTitle])
        #expect(try await fixture.operations().first?.item?["text"] == "mine")
        try await fixture.context.push()
        #expect(await handler.conflicts.isEmpty)
        #expect(await fixture.remote.items(table: "TodoItem").isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func anItemTheMigrationRemovesLosesItsPendingChangeButAQueuedDeleteStays(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "gone", "title": "old"], ["id": "deleted", "title": "old"]], table: "TodoItem")
        try await fixture.todo.pull()
        try await fixture.todo.update(["id": "gone", "title": "edited"])
        try await fixture.todo.delete(["id": "deleted", "title": "old"])
        try await fixture.todo.insert(["id": "kept", "title": "new"])
        let dropGone = Migration(version: 1, tables: ["TodoItem"]) { _, item in item["id"] == "gone" ? nil : item }
        try await fixture.context.migrate([dropGone])
        #expect(try await fixture.rows("TodoItem").map(\.["id"]) == ["kept"])
        #expect(try await fixture.operations().map(\.itemId) == ["deleted", "kept"])
        #expect(try await fixture.context.status().pendingOperations == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func aStoreMigratedByANewerAppIsRefused(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a", "title": "x"])
        try await fixture.context.migrate([Self.renameTitle, Self.addPriority])
        let rows = try await fixture.rows("TodoItem")
        await #expect(throws: SyncError.storeFromNewerApp(storeVersion: 2, knownVersion: 1)) {
            try await fixture.context.migrate([Self.renameTitle])
        }
        await #expect(throws: SyncError.storeFromNewerApp(storeVersion: 2, knownVersion: 0)) {
            try await fixture.context.migrate([])
        }
        #expect(try await fixture.rows("TodoItem") == rows)
        #expect(try await fixture.context.migrationVersion() == 2)
    }

    @Test func invalidMigrationListsAreRefused() async throws {
        let fixture = try await EngineFixture(.inMemory)
        let identity: @Sendable (String, JSONObject) throws -> JSONObject? = { _, item in item }
        for list in [[Migration(version: 0, tables: ["TodoItem"], transform: identity)],
                     [Migration(version: 1, tables: ["TodoItem"], transform: identity), Migration(version: 1, tables: [], transform: identity)],
                     [Migration(version: 1, tables: ["__operations"], transform: identity)]] {
            let error = await #expect(throws: SyncError.self) { try await fixture.context.migrate(list) }
            #expect(error?.code == .invalidMigrations)
        }
        #expect(try await fixture.context.migrationVersion() == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func aTransformThatChangesTheIdOrReturnsAnInvalidValueFails(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a", "title": "x"])
        let renameId = Migration(version: 1, tables: ["TodoItem"]) { _, item in
            var item = item
            item["id"] = "b"
            return item
        }
        let notANumber = Migration(version: 1, tables: ["TodoItem"]) { _, item in
            var item = item
            item["score"] = .double(.nan)
            return item
        }
        for migration in [renameId, notANumber] {
            let error = await #expect(throws: SyncError.self) { try await fixture.context.migrate([migration]) }
            #expect(error?.code == .migrationFailed)
        }
        #expect(try await fixture.rows("TodoItem").map(\.["id"]) == ["a"])
        // A missing id is filled in, and ids match case-insensitively.
        let upperCased = Migration(version: 1, tables: ["TodoItem"]) { _, item in ["id": "A", "title": item["title"] ?? nil] }
        try await fixture.context.migrate([upperCased])
        #expect(try await fixture.rows("TodoItem").map(\.["id"]) == ["A"])
    }

    /// The README's example: v1 `TodoItem(title)` becomes v2 `TodoItem(text, priority = 0)`.
    struct TodoItem: Codable, Sendable, Equatable {
        var id: String?
        var text: String
        var priority = 0
    }

    @Test(arguments: StoreKind.allCases)
    func typedItemsOfTheOldShapeDecodeAfterTheMigration(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "1", "title": "milk"])
        let todos = fixture.context.table(TodoItem.self, name: "TodoItem")
        await #expect(throws: (any Error).self) { try await todos.read(id: "1") }
        let toV2 = Migration(version: 2, tables: ["TodoItem"]) { _, item in
            var item = item
            item["text"] = item.removeValue(forKey: "title") ?? ""
            item["priority"] = item["priority"] ?? 0
            return item
        }
        try await fixture.context.migrate([toV2])
        #expect(try await todos.read(id: "1") == TodoItem(id: "1", text: "milk", priority: 0))
    }
}
