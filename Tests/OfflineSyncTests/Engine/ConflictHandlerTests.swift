import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// 409/412 answers go to the ConflictHandler with the server's item.
struct ConflictHandlerTests {
    /// A pulled item edited on the server by another device, then locally: the push gets a 412.
    private func conflictingUpdate(_ kind: StoreKind, handler: (any ConflictHandler)?) async throws -> EngineFixture {
        let fixture = try await EngineFixture(kind, handler: handler)
        await fixture.remote.seed([["id": "a", "text": "base", "note": "n"]], table: "TodoItem")
        try await fixture.todo.pull()
        await fixture.remote.serverUpdate(id: "a", table: "TodoItem", fields: ["text": "theirs"])
        var local = try #require(try await fixture.todo.read(id: "a"))
        local["text"] = "mine"
        try await fixture.todo.update(local)
        return fixture
    }

    @Test(arguments: StoreKind.allCases)
    func withoutHandlerAConflictFailsAndKeepsTheOperation(_ kind: StoreKind) async throws {
        let fixture = try await conflictingUpdate(kind, handler: nil)
        let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
        #expect(error?.reason == .operationErrors)
        #expect(error?.errors.first?.statusCode == 412)
        #expect(error?.errors.first?.serverItem?["text"] == "theirs")
        #expect(try await fixture.operations().count == 1)
        #expect(try await fixture.todo.read(id: "a")?["text"] == "mine")
    }

    @Test(arguments: StoreKind.allCases)
    func failResolutionIsRecorded(_ kind: StoreKind) async throws {
        let handler = FixedResolution(.fail)
        let fixture = try await conflictingUpdate(kind, handler: handler)
        await #expect(throws: PushError.self) { try await fixture.context.push() }
        let conflicts = await handler.conflicts
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.statusCode == 412)
        #expect(conflicts.first?.localItem?["text"] == "mine")
        #expect(conflicts.first?.serverItem?["text"] == "theirs")
    }

    @Test(arguments: StoreKind.allCases)
    func useServerDropsTheOperationAndStoresTheServerItem(_ kind: StoreKind) async throws {
        let fixture = try await conflictingUpdate(kind, handler: FixedResolution(.useServer))
        #expect(try await fixture.context.push().pushed == 1)
        #expect(try await fixture.operations().isEmpty)
        #expect(try await fixture.todo.read(id: "a") == (await fixture.remote.item(id: "a", table: "TodoItem")))
    }

    @Test(arguments: StoreKind.allCases)
    func useClientResendsTheLocalItemWithTheServerVersion(_ kind: StoreKind) async throws {
        let fixture = try await conflictingUpdate(kind, handler: FixedResolution(.useClient))
        #expect(try await fixture.context.push().pushed == 1)
        #expect(await fixture.remote.item(id: "a", table: "TodoItem")?["text"] == "mine")
        #expect(await fixture.remote.requests.suffix(2) == ["PATCH TodoItem/a", "PATCH TodoItem/a"])
        #expect(try await fixture.todo.read(id: "a")?["version"] == (await fixture.remote.item(id: "a", table: "TodoItem"))?["version"])
    }

    @Test(arguments: StoreKind.allCases)
    func useMergedResendsTheMergedItem(_ kind: StoreKind) async throws {
        let fixture = try await conflictingUpdate(kind, handler: FixedResolution(.useMerged(["id": "a", "text": "merged"])))
        #expect(try await fixture.context.push().pushed == 1)
        #expect(await fixture.remote.item(id: "a", table: "TodoItem")?["text"] == "merged")
        #expect(try await fixture.todo.read(id: "a")?["text"] == "merged")
    }

    @Test(arguments: StoreKind.allCases)
    func useClientAfterAnInsertConflictBecomesAnUpdate(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind, handler: FixedResolution(.useClient))
        await fixture.remote.seed([["id": "a", "text": "theirs"]], table: "TodoItem")
        try await fixture.todo.insert(["id": "a", "text": "mine"])
        #expect(try await fixture.context.push().pushed == 1)
        #expect(await fixture.remote.requests == ["POST TodoItem/a", "PATCH TodoItem/a"])
        #expect(await fixture.remote.item(id: "a", table: "TodoItem")?["text"] == "mine")
    }

    @Test(arguments: StoreKind.allCases)
    func useClientOnADeleteConflictDeletesWithTheServerVersion(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind, handler: FixedResolution(.useClient))
        await fixture.remote.seed([["id": "a"]], table: "TodoItem")
        try await fixture.todo.pull()
        let local = try #require(try await fixture.todo.read(id: "a"))
        await fixture.remote.serverUpdate(id: "a", table: "TodoItem", fields: ["text": "changed"])
        try await fixture.todo.delete(local)
        #expect(try await fixture.context.push().pushed == 1)
        #expect(await fixture.remote.items(table: "TodoItem").isEmpty)
    }

    struct Throwing: ConflictHandler {
        struct Refused: Error {}
        func resolve(_ conflict: SyncConflict) async throws -> ConflictResolution { throw Refused() }
    }

    @Test func aThrowingHandlerRecordsTheConflictAsAnError() async throws {
        let fixture = try await conflictingUpdate(.inMemory, handler: Throwing())
        let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
        #expect(error?.errors.first?.message.contains("conflict handler") == true)
    }

    @Test func aConflictThatKeepsComingBackEndsAfterTheRoundLimit() async throws {
        let fixture = try await conflictingUpdate(.inMemory, handler: FixedResolution(.useClient))
        await fixture.remote.failNext(5, with: .preconditionFailed(serverItem: ["id": "a", "text": "again", "version": "x"]), on: .update)
        let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
        #expect(error?.errors.count == 1)
        #expect(await fixture.remote.requests.filter { $0.hasPrefix("PATCH") }.count == SyncContext.maximumSendRounds)
    }

    @Test(arguments: StoreKind.allCases)
    func useServerOnADeleteConflictDropsTheDeleteAndRestoresTheServerItem(_ kind: StoreKind) async throws {
        let handler = FixedResolution(.useServer)
        let fixture = try await EngineFixture(kind, handler: handler)
        await fixture.remote.seed([["id": "a", "text": "base"]], table: "TodoItem")
        try await fixture.todo.pull()
        let local = try #require(try await fixture.todo.read(id: "a"))
        let changed = try #require(await fixture.remote.serverUpdate(id: "a", table: "TodoItem", fields: ["text": "changed"]))
        try await fixture.todo.delete(local)
        await fixture.remote.clearRequests()
        #expect(try await fixture.context.push().pushed == 1)
        // One DELETE (answered 412); the handler saw the delete's snapshot; nothing was resent.
        #expect(await fixture.remote.requests == ["DELETE TodoItem/a"])
        let conflicts = await handler.conflicts
        #expect(conflicts.map(\.operation.kind) == [.delete])
        #expect(conflicts.first?.localItem == local)
        #expect(conflicts.first?.serverItem == changed)
        // The server keeps its row, and the local table gets it back.
        #expect(await fixture.remote.item(id: "a", table: "TodoItem") == changed)
        #expect(try await fixture.todo.read(id: "a") == changed)
        #expect(try await fixture.operations().isEmpty)
        #expect(try await fixture.context.operationErrors().isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func useMergedWithAnotherItemsIdIsRecordedAsAnErrorAndNothingIsSent(_ kind: StoreKind) async throws {
        let handler = FixedResolution(.useMerged(["id": "b", "text": "merged"]))
        let fixture = try await conflictingUpdate(kind, handler: handler)
        await fixture.remote.clearRequests()
        let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
        #expect(error?.reason == .operationErrors)
        let failure = try #require(error?.errors.first)
        #expect(error?.errors.count == 1)
        #expect(failure.operation.itemId == "a" && failure.operation.kind == .update)
        #expect(failure.statusCode == 412)
        #expect(failure.serverItem?["text"] == "theirs")
        #expect(failure.message.contains("\"b\"") && failure.message.contains("nothing was sent"))
        // Only the first PATCH went out: the merged item was neither sent for `a` nor for `b`.
        #expect(await fixture.remote.requests == ["PATCH TodoItem/a"])
        #expect(await fixture.remote.item(id: "a", table: "TodoItem")?["text"] == "theirs")
        #expect(await fixture.remote.item(id: "b", table: "TodoItem") == nil)
        #expect(await handler.conflicts.count == 1)
        // The operation stays queued with the local item; the error is recorded.
        #expect(try await fixture.operations().map(\.itemId) == ["a"])
        #expect(try await fixture.todo.read(id: "a")?["text"] == "mine")
        #expect(try await fixture.todo.read(id: "b") == nil)
        #expect(try await fixture.context.operationErrors().map(\.message) == [failure.message])
    }

    /// The handler merges a 412; the merged resend lands but its answer is lost, and the user edits the item while it is
    /// out. The operation keeps what the resend recorded (its content, and the server's copy it was merged against as
    /// the base), so the next push sees its own merged row on the server and sends the edit over it: no second conflict.
    @Test(arguments: StoreKind.allCases)
    func aLostAnswerToAMergedResendIsNotAConflictAgainAfterAnEditDuringTheResend(_ kind: StoreKind) async throws {
        let handler = FixedResolution(.useMerged(["id": "a", "text": "merged", "note": "n"]))
        let remote = InMemoryRemote()
        let suspending = SuspendingRemote(remote)
        let fixture = try await EngineFixture(kind, remote: remote, wrap: { _ in suspending }, handler: handler)
        await remote.seed([["id": "a", "text": "base", "note": "n"]], table: "TodoItem")
        try await fixture.todo.pull()
        await remote.serverUpdate(id: "a", table: "TodoItem", fields: ["text": "theirs"])
        var local = try #require(try await fixture.todo.read(id: "a"))
        local["text"] = "mine"
        try await fixture.todo.update(local)
        // The first PATCH meets the 412; the merged resend parks before the server, then lands and its answer is lost.
        await suspending.suspendNext(.update, at: .beforeServer, skipping: 1)
        await remote.loseNextResponses(1, on: .update)
        let push = await suspending.parked { try await fixture.context.push() }
        var merged = try #require(try await fixture.todo.read(id: "a"))
        #expect(merged["text"] == "merged")
        merged["note"] = "edited during the resend"
        try await fixture.todo.update(merged)
        await suspending.resume()
        await #expect(throws: PushError.self) { try await push.value }
        #expect(await remote.item(id: "a", table: "TodoItem")?["text"] == "merged")

        let queued = try await fixture.operations()
        #expect(queued.count == 1)
        #expect(queued.first?.sentContents.contains { $0["text"] == "merged" } == true)
        #expect(queued.first?.base?["text"] == "theirs")
        #expect(try await fixture.context.push().pushed == 1)
        #expect(await handler.conflicts.count == 1)
        let server = await remote.item(id: "a", table: "TodoItem")
        #expect(server?["text"] == "merged" && server?["note"] == "edited during the resend")
        #expect(try await fixture.todo.read(id: "a")?["version"] == server?["version"])
    }
}
