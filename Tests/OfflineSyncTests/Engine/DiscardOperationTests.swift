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
}
