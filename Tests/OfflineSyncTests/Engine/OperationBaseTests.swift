import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Every pending update and delete remembers its base, the server's copy its local change started from: stored with
/// the operation in the local write's transaction, kept across restarts, collapses and lost answers, handed to the
/// conflict handler, replaced by the server's copy a merge was made against, and migrated with the items.
struct OperationBaseTests {
    /// Records the base of each conflict and resolves it with `resolution`.
    final class BaseRecorder: ConflictHandler, @unchecked Sendable {
        let bases = LockedValue<[JSONObject?]>([])
        let resolution: @Sendable (SyncConflict) -> ConflictResolution

        init(resolution: @escaping @Sendable (SyncConflict) -> ConflictResolution = { _ in .fail }) {
            self.resolution = resolution
        }

        func resolve(_ conflict: SyncConflict) async throws -> ConflictResolution {
            bases.withLock { $0.append(conflict.baseItem) }
            return resolution(conflict)
        }
    }

    /// A fixture whose store holds item `x` as pulled from the server.
    private func pulled(_ kind: StoreKind, handler: (any ConflictHandler)? = nil) async throws -> (EngineFixture, JSONObject) {
        let fixture = try await EngineFixture(kind, handler: handler)
        await fixture.remote.seed([["id": "x", "text": "server", "n": 1]], table: "TodoItem")
        try await fixture.todo.pull()
        return (fixture, try #require(try await fixture.todo.read(id: "x")))
    }

    @Test(arguments: StoreKind.allCases)
    func anUpdateRemembersThePulledCopyAndKeepsItAcrossARestart(_ kind: StoreKind) async throws {
        var (fixture, pulled) = try await pulled(kind)
        try await fixture.todo.update(["id": "x", "text": "mine", "n": 1, "version": pulled["version"] ?? .null])
        #expect(try await fixture.operations().first?.base == pulled)
        try await fixture.restart()
        #expect(try await fixture.operations().first?.base == pulled)
    }

    @Test(arguments: StoreKind.allCases)
    func anUpdateAfterAnUpdateKeepsTheFirstBaseAndADeleteAfterItToo(_ kind: StoreKind) async throws {
        let (fixture, pulled) = try await pulled(kind)
        let version = pulled["version"] ?? .null
        try await fixture.todo.update(["id": "x", "text": "one", "version": version])
        try await fixture.todo.update(["id": "x", "text": "two", "version": version])
        #expect(try await fixture.operations().map(\.base) == [pulled])
        try await fixture.todo.delete(["id": "x", "version": version])
        let operations = try await fixture.operations()
        #expect(operations.map(\.kind) == [.delete] && operations.map(\.base) == [pulled])
    }

    @Test(arguments: StoreKind.allCases)
    func anInsertHasNoBaseNorDoItsLaterUpdates(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "new", "text": "a"])
        try await fixture.todo.update(["id": "new", "text": "b"])
        let operations = try await fixture.operations()
        #expect(operations.map(\.kind) == [.insert] && operations.first?.base == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func theConflictHandlerIsGivenTheBase(_ kind: StoreKind) async throws {
        let recorder = BaseRecorder()
        let (fixture, pulled) = try await pulled(kind, handler: recorder)
        await fixture.remote.serverUpdate(id: "x", table: "TodoItem", fields: ["n": 2])
        try await fixture.todo.update(["id": "x", "text": "mine", "n": 1, "version": pulled["version"] ?? .null])
        await #expect(throws: PushError.self) { _ = try await fixture.context.push() }
        #expect(recorder.bases.withLock { $0 } == [pulled])
        let errors = try await fixture.context.operationErrors()
        #expect(errors.first?.operation.base == pulled, "an error keeps the operation's base")
    }

    /// A merged resend whose answer is lost: the operation stays, and its base is now the server's copy the merge was
    /// made against (the local item is the merged content).
    @Test(arguments: StoreKind.allCases)
    func aMergeMakesTheServersCopyTheBaseAndALostAnswerKeepsIt(_ kind: StoreKind) async throws {
        let recorder = BaseRecorder { conflict in
            var merged = conflict.serverItem ?? [:]
            merged["text"] = conflict.localItem?["text"]
            return .useMerged(merged)
        }
        let (fixture, pulled) = try await pulled(kind, handler: recorder)
        let onServer = try #require(await fixture.remote.serverUpdate(id: "x", table: "TodoItem", fields: ["n": 2]))
        try await fixture.todo.update(["id": "x", "text": "mine", "n": 1, "version": pulled["version"] ?? .null])
        await fixture.remote.loseNextResponses(1, on: .update)
        await #expect(throws: PushError.self) { _ = try await fixture.context.push() }
        #expect(try await fixture.operations().first?.base == onServer)
        let local = try #require(try await fixture.todo.read(id: "x"))
        #expect(local["text"] == "mine" && local["n"] == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func aMigrationTransformsBases(_ kind: StoreKind) async throws {
        let (fixture, pulled) = try await pulled(kind)
        try await fixture.todo.update(["id": "x", "text": "mine", "n": 1, "version": pulled["version"] ?? .null])
        try await fixture.context.migrate([Migration(version: 1, tables: ["TodoItem"]) { _, item in
            var item = item
            item["title"] = item.removeValue(forKey: "text")
            return item
        }])
        let base = try #require(try await fixture.operations().first?.base)
        #expect(base["title"] == "server" && base["text"] == nil)
    }

    @Test func aStoredBaseThatIsNotAnObjectIsACorruptRecord() throws {
        var row = OperationStore.row(for: TableOperation(id: 1, kind: .update, table: "T", itemId: "a", item: nil))
        row["base"] = "text"
        #expect(throws: SyncError.self) { try OperationStore.operation(from: row) }
        row["base"] = ["id": "a"]
        #expect(try OperationStore.operation(from: row).base == ["id": "a"])
    }
}
