import Testing
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// `SyncContext.waitUntilPushed(timeout:)`: returns once what was queued is on the server, throws at once what needs
/// the app, and gives up on a network that does not come back.
struct WaitUntilPushedTests {
    @Test(arguments: StoreKind.allCases)
    func itReturnsOnceEveryQueuedChangeIsOnTheServer(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.context.waitUntilPushed(timeout: .seconds(60))
        #expect(await fixture.remote.requests.isEmpty)
        for id in ["a", "b", "c"] { try await fixture.todo.insert(["id": .string(id)]) }
        try await fixture.context.waitUntilPushed(timeout: .seconds(60))
        #expect(try await fixture.operations().isEmpty)
        #expect(await fixture.remote.items(table: "TodoItem").count == 3)
    }

    @Test(arguments: StoreKind.allCases)
    func anOperationErrorIsThrownAtOnce(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a"])
        await fixture.remote.failNext(1, with: .server(status: 400, message: "refused"))
        let error = await #expect(throws: PushError.self) { try await fixture.context.waitUntilPushed(timeout: .seconds(600)) }
        #expect(error?.reason == .operationErrors && error?.errors.map(\.operation.itemId) == ["a"])
        #expect(await fixture.remote.requests == ["POST TodoItem/a"])
    }

    @Test(arguments: StoreKind.allCases)
    func anUnauthorizedPushIsThrownAtOnce(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a"])
        await fixture.remote.failNext(1, with: .unauthorized)
        let error = await #expect(throws: PushError.self) { try await fixture.context.waitUntilPushed(timeout: .seconds(600)) }
        #expect(error?.reason == .unauthorized)
    }

    @Test(arguments: StoreKind.allCases)
    func aNetworkThatComesBackWithinTheTimeoutEndsTheWait(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a"])
        await fixture.remote.failNext(3, with: .network("down"))
        try await fixture.context.waitUntilPushed(timeout: .seconds(600))
        #expect(await fixture.remote.items(table: "TodoItem").count == 1)
        #expect(try await fixture.operations().isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func aNetworkThatStaysAwayEndsTheWaitAfterTheTimeoutWithTheChangesQueued(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a"])
        await fixture.remote.setOffline(true)
        let error = await #expect(throws: PushError.self) { try await fixture.context.waitUntilPushed(timeout: .milliseconds(500)) }
        #expect(error?.reason == .network)
        #expect(try await fixture.operations().map(\.itemId) == ["a"])
    }
}
