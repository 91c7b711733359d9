import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// `discard(_:keepingLocalItem:)`: dropping a queued operation without an error first.
struct DiscardOperationTests {
    @Test(arguments: StoreKind.allCases, [true, false])
    func aDiscardedOperationIsNeverSentAndTheLocalItemStaysOrGoes(_ kind: StoreKind, _ keeping: Bool) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a", "text": "x"])
        try await fixture.todo.insert(["id": "b"])
        let operation = try #require(try await fixture.operations().first)
        try await fixture.context.discard(operation, keepingLocalItem: keeping)
        #expect(try await fixture.operations().map(\.itemId) == ["b"])
        #expect((try await fixture.todo.read(id: "a") != nil) == keeping)
        try await fixture.context.push()
        #expect(await fixture.remote.requests == ["POST TodoItem/b"])
    }

    @Test(arguments: StoreKind.allCases)
    func anOperationChangedOrGoneSinceItWasReadIsNotDiscarded(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a"])
        let read = try #require(try await fixture.operations().first)
        try await fixture.todo.update(["id": "a", "text": "edited"])
        await #expect(throws: SyncError.operationChanged(operationId: read.id, table: "TodoItem", itemId: "a")) {
            try await fixture.context.discard(read, keepingLocalItem: false)
        }
        #expect(try await fixture.operations().count == 1)
        try await fixture.context.push()
        await #expect(throws: SyncError.operationNotFound(operationId: read.id, table: "TodoItem", itemId: "a")) {
            try await fixture.context.discard(read, keepingLocalItem: false)
        }
        #expect(try await fixture.todo.read(id: "a")?["text"] == "edited")
    }

    @Test func anOperationBeingSentIsNotDiscarded() async throws {
        let (fixture, suspending) = try await EngineFixture.suspended(.inMemory)
        try await fixture.todo.insert(["id": "a"])
        let operation = try #require(try await fixture.operations().first)
        await suspending.suspendNext(.insert, at: .beforeServer)
        let push = await suspending.parked { try await fixture.context.push() }
        await #expect(throws: SyncError.operationInFlight(operationId: operation.id, table: "TodoItem", itemId: "a")) {
            try await fixture.context.discard(operation, keepingLocalItem: true)
        }
        await suspending.resume()
        #expect(try await push.value.pushed == 1)
    }

    /// `x` pulled by an incremental pull, then edited on the server; the pull that brought the edit left `x` alone
    /// (it has a pending operation, queued by `change`), so the token is past the server's copy.
    private func pendingChangePastTheToken(_ fixture: EngineFixture, change: TableOperation.Kind) async throws -> TableOperation {
        await fixture.remote.seed([["id": "x", "text": "base"]], table: "TodoItem")
        try await fixture.todo.pull(queryId: "all")
        await fixture.remote.serverUpdate(id: "x", table: "TodoItem", fields: ["text": "theirs"])
        let local = try #require(try await fixture.todo.read(id: "x"))
        if change == .delete { try await fixture.todo.delete(local) } else { try await fixture.todo.update(local) }
        try await fixture.todo.pull(queryId: "all", settings: PullSettings(pushFirst: .nothing))
        return try #require(try await fixture.operations().first)
    }

    @Test(arguments: StoreKind.allCases)
    func aDiscardedUpdateWithoutItsLocalItemComesBackWithTheNextIncrementalPull(_ kind: StoreKind) async throws {
        var fixture = try await EngineFixture(kind)
        let operation = try await pendingChangePastTheToken(fixture, change: .update)
        try await fixture.context.discard(operation, keepingLocalItem: false)
        #expect(try await fixture.todo.read(id: "x") == nil)
        try await fixture.restart()
        try await fixture.todo.pull(queryId: "all")
        #expect(try await fixture.todo.read(id: "x")?["text"] == "theirs")
        #expect(await fixture.remote.requests.filter { $0.hasPrefix("PATCH") || $0.hasPrefix("DELETE") }.isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func aDiscardedDeleteComesBackWithTheNextIncrementalPull(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let operation = try await pendingChangePastTheToken(fixture, change: .delete)
        try await fixture.context.discard(operation, keepingLocalItem: true)
        try await fixture.todo.pull(queryId: "all")
        #expect(try await fixture.todo.read(id: "x")?["text"] == "theirs")
        #expect(await fixture.remote.item(id: "x", table: "TodoItem")?["deleted"] == false)
    }
}
