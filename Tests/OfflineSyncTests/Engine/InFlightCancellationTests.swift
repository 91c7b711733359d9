import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Cancelling a push while one of its requests is in flight:
/// the exact queue, store and server state for each moment the cancellation can hit.
struct InFlightCancellationTests {
    /// The ways a remote reports a cancelled request.
    static let failures: [SuspendingRemote.WhenCancelled] = [.throwsCancellationError, .throwsNetworkError]

    /// A context whose remote parks the first insert at `point` and then fails the cancelled call as
    /// `failure` says; `a` and `b` are queued inserts.
    private func pushParked(_ kind: StoreKind, at point: SuspendingRemote.Point, failure: SuspendingRemote.WhenCancelled)
        async throws -> (EngineFixture, Task<PushResult, any Error>) {
        let (fixture, suspending) = try await EngineFixture.suspended(kind, whenCancelled: failure)
        try await fixture.todo.insert(["id": "a", "text": "local"])
        try await fixture.todo.insert(["id": "b", "text": "local"])
        await suspending.suspendNext(.insert, at: point)
        let push = await suspending.cancelWhileParked { try await fixture.context.push(settings: .oneAtATime) }
        return (fixture, push)
    }

    /// Expects the inserts of `a` and `b` to be queued as first written (revision 0), with no operation error
    /// recorded and both rows stored as written locally.
    private func expectBothInsertsQueuedUnchanged(_ fixture: EngineFixture,
                                                  sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(try await fixture.operations().map { "\($0.id) \($0.kind.rawValue) \($0.itemId) r\($0.revision)" }
                == ["1 insert a r0", "2 insert b r0"], sourceLocation: sourceLocation)
        #expect(try await fixture.context.operationErrors().isEmpty, sourceLocation: sourceLocation)
        #expect(try await fixture.rows("TodoItem") == [["id": "a", "text": "local"], ["id": "b", "text": "local"]],
                sourceLocation: sourceLocation)
    }

    @Test(arguments: StoreKind.allCases, failures)
    func cancellingARequestBeforeTheServerAppliedItKeepsTheOperationAsItWas(_ kind: StoreKind, _ failure: SuspendingRemote.WhenCancelled) async throws {
        let (fixture, push) = try await pushParked(kind, at: .beforeServer, failure: failure)
        await expectCancelledWithoutErrors(push)
        // Nothing reached the server; both operations are queued unchanged and no error was recorded.
        #expect(await fixture.remote.requests.isEmpty)
        #expect(await fixture.remote.items(table: "TodoItem").isEmpty)
        try await expectBothInsertsQueuedUnchanged(fixture)
        // The next push sends both, in order.
        #expect(try await fixture.context.push().pushed == 2)
        #expect(await fixture.remote.requests == ["POST TodoItem/a", "POST TodoItem/b"])
        #expect(try await fixture.operations().isEmpty)
    }

    @Test(arguments: StoreKind.allCases, failures)
    func cancellingARequestAfterTheServerAppliedItKeepsTheOperationAndTheResendCountsAsSuccess(_ kind: StoreKind, _ failure: SuspendingRemote.WhenCancelled) async throws {
        let (fixture, push) = try await pushParked(kind, at: .afterServer, failure: failure)
        await expectCancelledWithoutErrors(push)
        // The server holds `a`, but its answer was lost: locally `a` is still the unsent insert, without a version.
        #expect(await fixture.remote.requests == ["POST TodoItem/a"])
        let serverA = try #require(await fixture.remote.item(id: "a", table: "TodoItem"))
        #expect(serverA["text"] == "local")
        try await expectBothInsertsQueuedUnchanged(fixture)
        // The resent insert meets a 409 with the same content, which counts as success and stores the server's copy.
        #expect(try await fixture.context.push().pushed == 2)
        #expect(await fixture.remote.requests == ["POST TodoItem/a", "POST TodoItem/a", "POST TodoItem/b"])
        #expect(try await fixture.operations().isEmpty)
        #expect(try await fixture.todo.read(id: "a") == serverA)
    }

    @Test(arguments: StoreKind.allCases)
    func aCancelledRequestWhoseAnswerStillArrivesIsStoredAndTheRestStaysQueued(_ kind: StoreKind) async throws {
        // A remote that ignores cancellation (the answer arrives anyway): the answer is stored, nothing else is sent.
        let (fixture, suspending) = try await EngineFixture.suspended(kind)
        try await fixture.todo.insert(["id": "a", "text": "local"])
        try await fixture.todo.insert(["id": "b", "text": "local"])
        await suspending.suspendNext(.insert, at: .beforeServer)
        let push = await suspending.cancelWhileParked { try await fixture.context.push(settings: .oneAtATime) }
        await expectCancelledWithoutErrors(push)
        #expect(await fixture.remote.requests == ["POST TodoItem/a"])
        #expect(try await fixture.operations().map(\.id) == [2])
        #expect(try await fixture.todo.read(id: "a") == (await fixture.remote.item(id: "a", table: "TodoItem")))
        #expect(try await fixture.todo.read(id: "b") == ["id": "b", "text": "local"])
    }

    @Test(arguments: StoreKind.allCases)
    func aServerErrorArrivingAfterTheCancellationCountsAsCancellationAndRecordsNothing(_ kind: StoreKind) async throws {
        // Reference §12.4 with a 500 answer: no "server" row at any point. Here the failed answer of a cancelled
        // request is not recorded as an operation error: the push stops as cancelled, and the next push retries.
        let (fixture, suspending) = try await EngineFixture.suspended(kind)
        try await fixture.todo.insert(["id": "a", "text": "local"])
        try await fixture.todo.insert(["id": "b", "text": "local"])
        await fixture.remote.failNext(1, with: .server(status: 500, message: "boom"))
        await suspending.suspendNext(.insert, at: .beforeServer)
        let push = await suspending.cancelWhileParked { try await fixture.context.push(settings: .oneAtATime) }
        await expectCancelledWithoutErrors(push)
        #expect(await fixture.remote.requests == ["POST TodoItem/a"])
        #expect(await fixture.remote.items(table: "TodoItem").isEmpty)
        #expect(try await fixture.operations().map(\.id) == [1, 2])
        #expect(try await fixture.context.operationErrors().isEmpty)
        #expect(try await fixture.rows("TodoItem") == [["id": "a", "text": "local"], ["id": "b", "text": "local"]])
        #expect(try await fixture.context.push().pushed == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func aCancelledPushCarriesTheErrorsOfTheOperationsTriedBefore(_ kind: StoreKind) async throws {
        let (fixture, suspending) = try await EngineFixture.suspended(kind, whenCancelled: .throwsCancellationError)
        try await fixture.todo.insert(["id": "a"])
        try await fixture.todo.insert(["id": "b"])
        await fixture.remote.failNext(1, with: .server(status: 500, message: "boom"))
        await suspending.suspendNext(.insert, at: .beforeServer, skipping: 1)
        let push = await suspending.cancelWhileParked { try await fixture.context.push(settings: .oneAtATime) }
        let error = await #expect(throws: PushError.self) { try await push.value }
        #expect(error?.reason == .cancelled)
        #expect(error?.errors.map { "\($0.operation.id) \($0.statusCode ?? 0)" } == ["1 500"])
        #expect(try await fixture.context.operationErrors().map(\.operation.id) == [1])
        #expect(try await fixture.operations().map(\.id) == [1, 2])
        #expect(await fixture.remote.requests == ["POST TodoItem/a"])
    }

    @Test(arguments: StoreKind.allCases)
    func anUnauthorizedPushCarriesTheErrorsOfTheOperationsTriedBefore(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a"])
        try await fixture.todo.insert(["id": "b"])
        try await fixture.todo.insert(["id": "c"])
        await fixture.remote.failNext(1, with: .server(status: 500, message: "boom"))
        await fixture.remote.failNext(1, with: .unauthorized)
        let error = await #expect(throws: PushError.self) { try await fixture.context.push(settings: .oneAtATime) }
        #expect(error?.reason == .unauthorized)
        #expect(error?.errors.map { "\($0.operation.id) \($0.statusCode ?? 0)" } == ["1 500"])
        #expect(try await fixture.context.operationErrors().map(\.operation.id) == [1])
        #expect(try await fixture.operations().map(\.id) == [1, 2, 3])
        #expect(await fixture.remote.requests == ["POST TodoItem/a", "POST TodoItem/b"])
    }
}
