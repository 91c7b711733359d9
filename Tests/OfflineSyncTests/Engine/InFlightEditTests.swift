import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Edits made while a push is in flight, and conflicts that outlast the handler's rounds.
struct InFlightEditTests {
    private func pulledAndEdited(_ fixture: EngineFixture) async throws {
        await fixture.remote.seed([["id": "a", "text": "base"]], table: "TodoItem")
        try await fixture.todo.pull()
        var local = try #require(try await fixture.todo.read(id: "a"))
        local["text"] = "mine"
        try await fixture.todo.update(local)
    }

    /// SyncContext+PushSteps.swift `send`: after three rounds the recorded error drops the 412 status and the server item, so
    /// the caller cannot resolve it with `cancelAndUpdate(error, with: error.serverItem)`.
    @Test func aConflictStillUnresolvedAfterThreeRoundsKeepsItsStatusAndServerItem() async throws {
        let fixture = try await EngineFixture(.inMemory, handler: FixedResolution(.useClient))
        try await pulledAndEdited(fixture)
        await fixture.remote.failNext(5, with: .preconditionFailed(serverItem: ["id": "a", "text": "theirs", "version": "x"]), on: .update)
        let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
        let recorded = try #require(error?.errors.first)
        #expect(recorded.statusCode == 412)
        #expect(recorded.serverItem?["text"] == "theirs")
    }

    /// Pulls and edits item "a", starts a push that parks after the server applied the update, runs `edit` while
    /// it is parked, then lets the push finish; returns the push's outcome.
    private func pushWithEditInFlight(_ kind: StoreKind, edit: @Sendable (EngineFixture) async throws -> Void)
        async throws -> (EngineFixture, Result<PushResult, any Error>) {
        let (fixture, suspending) = try await EngineFixture.suspended(kind)
        try await pulledAndEdited(fixture)
        await suspending.suspendNext(.update, at: .afterServer)
        let context = fixture.context
        let push = await suspending.parked { try await context.push() }
        try await edit(fixture)
        await suspending.resume()
        return (fixture, await push.result)
    }

    /// An edit made while the previous update of the same item is in flight is queued as a new operation (right),
    /// but the server's answer to the first one is dropped entirely, version included, so the second PATCH carries
    /// the stale `If-Match` and conflicts with the device's own earlier write.
    @Test(arguments: StoreKind.allCases)
    func anEditDuringAnInFlightUpdateDoesNotConflictWithItself(_ kind: StoreKind) async throws {
        let (fixture, outcome) = try await pushWithEditInFlight(kind) { fixture in
            var local = try #require(try await fixture.todo.read(id: "a"))
            local["text"] = "mine, edited again"
            try await fixture.todo.update(local)
        }
        #expect(throws: Never.self) { try outcome.get() }
        #expect(await fixture.remote.item(id: "a", table: "TodoItem")?["text"] == "mine, edited again")
    }

    /// A delete queued while the previous update of the same item is in flight carries the version that update
    /// produced, so the DELETE's If-Match does not conflict with this device's own write.
    @Test(arguments: StoreKind.allCases)
    func aDeleteDuringAnInFlightUpdateDoesNotConflictWithItself(_ kind: StoreKind) async throws {
        let (fixture, outcome) = try await pushWithEditInFlight(kind) { fixture in
            try await fixture.todo.delete(try #require(try await fixture.todo.read(id: "a")))
        }
        #expect(throws: Never.self) { try outcome.get() }
        #expect(await fixture.remote.items(table: "TodoItem").isEmpty, "the delete reached the server")
        #expect(try await fixture.context.pendingOperations().isEmpty)
    }

    /// The operations queued behind the one in flight were marked attempted in the same run, with their content
    /// then; the push keeps them so that their turn does not read them again. Edits made to them in the meantime
    /// must win: an update folded into a queued insert is sent as edited, a cancelled operation is not sent.
    @Test(arguments: StoreKind.allCases)
    func operationsEditedAfterBeingMarkedAheadAreSentAsEdited(_ kind: StoreKind) async throws {
        let (fixture, suspending) = try await EngineFixture.suspended(kind)
        for id in ["a", "b", "c"] { try await fixture.todo.insert(["id": .string(id), "text": .string(id)]) }
        await suspending.suspendNext(.insert, at: .afterServer)
        let context = fixture.context
        let push = await suspending.parked { try await context.push(settings: .oneAtATime) }
        var b = try #require(try await fixture.todo.read(id: "b"))
        b["text"] = "b, edited"
        try await fixture.todo.update(b)
        let c = try #require(try await context.pendingOperations().first { $0.itemId == "c" })
        try await context.discard(c, keepingLocalItem: false)
        await suspending.resume()
        #expect(try await push.value.pushed == 2, "a and the edited b")
        #expect(await fixture.remote.item(id: "b", table: "TodoItem")?["text"] == "b, edited")
        #expect(await fixture.remote.item(id: "c", table: "TodoItem") == nil, "the cancelled insert was not sent")
        #expect(try await context.pendingOperations().isEmpty)
    }
}
