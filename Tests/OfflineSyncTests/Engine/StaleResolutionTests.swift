import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Resolving an error whose operation is not in flight but changed since the error was recorded (collapsed into,
/// turned into a delete, re-queued, pushed) throws the exact `SyncError` and changes nothing (the contract of a push).
struct StaleResolutionTests {
    enum Method: String, Sendable, CaseIterable, CustomTestStringConvertible {
        case cancelAndDiscard, cancelAndUpdate, keepAndUpdate
        var testDescription: String { rawValue }

        func call(_ context: SyncContext, _ error: TableOperationError) async throws {
            let item: JSONObject = ["id": "ABC", "text": "resolution"]
            switch self {
            case .cancelAndDiscard: try await context.cancelAndDiscard(error)
            case .cancelAndUpdate: try await context.cancelAndUpdate(error, with: item)
            case .keepAndUpdate: try await context.keepAndUpdate(error, with: item)
            }
        }
    }

    enum Change: String, Sendable, CaseIterable, CustomTestStringConvertible {
        /// An update collapsed into the failed insert (same op, new revision).
        case updateCollapsedIntoIt
        /// A delete turned the failed update into a delete (same op, new kind).
        case deleteTurnedItIntoADelete
        /// A delete turned the failed insert, which may have reached the server, into a delete (same op, new kind).
        case deleteTurnedTheAttemptedInsertIntoADelete
        /// A delete turned the failed insert into a delete, the next push sent it, and a new insert queued another op.
        case reQueuedAfterThePushedDelete
        /// The next push sent it, and a new edit queued another op for the item.
        case pushedThenEditedAgain
        var testDescription: String { rawValue }
    }

    /// The state a failed resolution must leave untouched.
    struct Snapshot: Equatable {
        var operations: [String]
        var errors: [Int64]
        var row: JSONObject?
    }

    private func snapshot(_ fixture: EngineFixture) async throws -> Snapshot {
        Snapshot(operations: try await fixture.operations().map { "\($0.id) \($0.kind.rawValue) \($0.itemId) r\($0.revision)" },
                 errors: try await fixture.context.operationErrors().map(\.operation.id),
                 row: try await fixture.todo.read(id: "ABC"))
    }

    @Test(arguments: StoreKind.allCases, Change.allCases)
    func resolvingAnErrorWhoseOperationChangedSinceThrowsAndChangesNothing(_ kind: StoreKind, _ change: Change) async throws {
        for method in Method.allCases {
            let fixture = try await EngineFixture(kind)
            if change == .deleteTurnedItIntoADelete {
                await fixture.remote.seed([["id": "ABC"]], table: "TodoItem")
                try await fixture.todo.update(["id": "ABC", "text": "initial value"])
            } else {
                try await fixture.todo.insert(["id": "ABC", "text": "initial value"])
            }
            await fixture.remote.failNext(1, with: .server(status: 500, message: "boom"))
            let pushError = await #expect(throws: PushError.self) { try await fixture.context.push() }
            let error = try #require(pushError?.errors.first)
            #expect(error.operation.id == 1 && error.operation.revision == 0)

            let expected: SyncError
            let expectedState: Snapshot
            switch change {
            case .updateCollapsedIntoIt:
                try await fixture.todo.update(["id": "ABC", "text": "edited"])
                expected = .operationChanged(operationId: 1, table: "TodoItem", itemId: "ABC")
                expectedState = Snapshot(operations: ["1 insert ABC r1"], errors: [], row: ["id": "ABC", "text": "edited"])
            case .deleteTurnedItIntoADelete:
                try await fixture.todo.delete(["id": "ABC"])
                expected = .operationChanged(operationId: 1, table: "TodoItem", itemId: "ABC")
                expectedState = Snapshot(operations: ["1 delete ABC r1"], errors: [], row: nil)
            case .deleteTurnedTheAttemptedInsertIntoADelete:
                try await fixture.todo.delete(["id": "ABC"])
                expected = .operationChanged(operationId: 1, table: "TodoItem", itemId: "ABC")
                expectedState = Snapshot(operations: ["1 delete ABC r1"], errors: [], row: nil)
            case .reQueuedAfterThePushedDelete:
                try await fixture.todo.delete(["id": "ABC"])
                #expect(try await fixture.context.push().pushed == 1)
                try await fixture.todo.insert(["id": "ABC", "text": "again"])
                expected = .operationNotFound(operationId: 1, table: "TodoItem", itemId: "ABC")
                expectedState = Snapshot(operations: ["2 insert ABC r0"], errors: [], row: ["id": "ABC", "text": "again"])
            case .pushedThenEditedAgain:
                #expect(try await fixture.context.push().pushed == 1)
                var local = try #require(try await fixture.todo.read(id: "ABC"))
                local["text"] = "edited"
                try await fixture.todo.update(local)
                expected = .operationNotFound(operationId: 1, table: "TodoItem", itemId: "ABC")
                expectedState = Snapshot(operations: ["2 update ABC r0"], errors: [], row: local)
            }
            #expect(try await snapshot(fixture) == expectedState, "\(method)")
            await #expect(throws: expected, "\(method)") { try await method.call(fixture.context, error) }
            #expect(try await snapshot(fixture) == expectedState, "\(method)")
        }
    }

    @Test(arguments: StoreKind.allCases, Method.allCases)
    func resolvingAnErrorWhoseOperationIsBeingResentThrowsOperationInFlight(_ kind: StoreKind, _ method: Method) async throws {
        let (fixture, suspending) = try await EngineFixture.suspended(kind)
        try await fixture.todo.insert(["id": "ABC", "text": "initial value"])
        await fixture.remote.failNext(1, with: .server(status: 500, message: "boom"))
        let pushError = await #expect(throws: PushError.self) { try await fixture.context.push() }
        let error = try #require(pushError?.errors.first)
        await suspending.suspendNext(.insert, at: .beforeServer)
        let push = await suspending.parked { try await fixture.context.push() }
        // The next push cleared the error rows and is resending the operation.
        let before = try await snapshot(fixture)
        #expect(before == Snapshot(operations: ["1 insert ABC r0"], errors: [], row: ["id": "ABC", "text": "initial value"]))
        await #expect(throws: SyncError.operationInFlight(operationId: 1, table: "TodoItem", itemId: "ABC")) {
            try await method.call(fixture.context, error)
        }
        #expect(try await snapshot(fixture) == before)
        await suspending.resume()
        #expect(try await push.value.pushed == 1)
        #expect(try await fixture.operations().isEmpty)
        #expect(await fixture.remote.item(id: "ABC", table: "TodoItem")?["text"] == "initial value")
    }
}
