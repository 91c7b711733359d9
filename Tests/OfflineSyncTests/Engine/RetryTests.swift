import Testing
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// `SyncContext.retry(_:)`: a failed operation is pending again, in its place, and the next push sends it.
struct RetryTests {
    /// Queues inserts of `ids` and has the push of all of them fail with 400; returns the errors in queue order.
    private func failedInserts(_ fixture: EngineFixture, _ ids: [String]) async throws -> [TableOperationError] {
        for id in ids { try await fixture.todo.insert(["id": .string(id), "text": "first"]) }
        await fixture.remote.failNext(ids.count, with: .server(status: 400, message: "refused"))
        let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
        return try #require(error?.errors)
    }

    @Test(arguments: StoreKind.allCases)
    func aRetriedOperationIsPendingAgainInItsPlaceAndTheNextPushSendsIt(_ kind: StoreKind) async throws {
        var fixture = try await EngineFixture(kind)
        let errors = try await failedInserts(fixture, ["one", "two"])
        try await fixture.context.retry(errors[0])
        #expect(try await fixture.context.operationErrors().map(\.operation.itemId) == ["two"])
        #expect(try await fixture.operations().map(\.itemId) == ["one", "two"])
        try await fixture.restart()
        #expect(try await fixture.context.operationErrors().map(\.operation.itemId) == ["two"])
        await fixture.remote.clearRequests()
        try await fixture.context.push()
        #expect(await fixture.remote.requests == ["POST TodoItem/one", "POST TodoItem/two"])
        #expect(try await fixture.operations().isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func aRetryOfAnOperationChangedOrGoneSinceItsErrorThrows(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let errors = try await failedInserts(fixture, ["one", "two"])
        try await fixture.todo.update(["id": "one", "text": "edited"])
        try await fixture.context.cancelAndDiscard(errors[1])
        let before = try await fixture.context.operationErrors().map(\.operation)
        await #expect(throws: SyncError.operationChanged(operationId: errors[0].operation.id, table: "TodoItem", itemId: "one")) {
            try await fixture.context.retry(errors[0])
        }
        await #expect(throws: SyncError.operationNotFound(operationId: errors[1].operation.id, table: "TodoItem", itemId: "two")) {
            try await fixture.context.retry(errors[1])
        }
        #expect(try await fixture.context.operationErrors().map(\.operation) == before)
        #expect(try await fixture.operations().map(\.itemId) == ["one"])
    }
}
