import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// An insert that may have reached the server (its answer lost, the push failed, the process died) is never
/// dropped by a later delete: the delete reaches the server, and the item does not come back.
struct AttemptedInsertTests {
    /// How a push of the insert fails after its request left.
    enum Failure: String, Sendable, CaseIterable, CustomTestStringConvertible {
        /// The server stored the item; the answer never arrived.
        case lostAnswer
        /// The request never reached the server.
        case networkError
        /// The server answered 503 (it may or may not have stored the item).
        case unavailable
        var testDescription: String { rawValue }

        func arm(_ remote: InMemoryRemote) async {
            switch self {
            case .lostAnswer: await remote.loseNextResponses(1, on: .insert)
            case .networkError: await remote.failNext(1, with: .network("connection reset"), on: .insert)
            case .unavailable: await remote.failNext(1, with: .server(status: 503, message: "busy"), on: .insert)
            }
        }
    }

    /// Pushes until the queue is empty with no error, then pulls; expects `x` gone locally and on the server.
    private func expectDeletedEverywhere(_ fixture: EngineFixture, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await fixture.context.push()
        #expect(try await fixture.operations().isEmpty, sourceLocation: sourceLocation)
        #expect(try await fixture.context.operationErrors().isEmpty, sourceLocation: sourceLocation)
        try await fixture.todo.pull(queryId: "all")
        #expect(try await fixture.todo.read(id: "x") == nil, sourceLocation: sourceLocation)
        #expect(await fixture.remote.items(table: "TodoItem").isEmpty, sourceLocation: sourceLocation)
    }

    /// Inserts `x` with text "A" and pushes it; the server stores it, and the answer is lost.
    private func insertLosingTheAnswer(_ fixture: EngineFixture) async throws {
        try await fixture.todo.insert(["id": "x", "text": "A"])
        await fixture.remote.loseNextResponses(1, on: .insert)
        await #expect(throws: PushError.self) { try await fixture.context.push() }
    }

    @Test(arguments: StoreKind.allCases, Failure.allCases)
    func aDeleteAfterAFailedPushOfTheInsertReachesTheServer(_ kind: StoreKind, _ failure: Failure) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "x", "text": "A"])
        await failure.arm(fixture.remote)
        await #expect(throws: PushError.self) { try await fixture.context.push() }
        let queued = try await fixture.operations()
        #expect(queued.map(\.kind) == [.insert] && queued.first?.attempted == true)
        #expect(queued.first?.sentContents == [["id": "x", "text": "A"]])

        try await fixture.todo.delete(["id": "x", "text": "A"])
        let afterDelete = try await fixture.operations()
        #expect(afterDelete.map(\.kind) == [.delete] && afterDelete.first?.id == queued.first?.id)
        try await expectDeletedEverywhere(fixture)
    }

    @Test(arguments: StoreKind.allCases)
    func aDeleteAfterARestartWithTheInsertsAnswerLostReachesTheServer(_ kind: StoreKind) async throws {
        var fixture = try await EngineFixture(kind)
        try await insertLosingTheAnswer(fixture)
        try await fixture.restart()
        #expect(try await fixture.operations().first?.attempted == true)
        try await fixture.todo.delete(["id": "x"])
        try await expectDeletedEverywhere(fixture)
    }

    @Test(arguments: StoreKind.allCases)
    func anInsertThatNeverLeftIsStillRemovedByADelete(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "x"])
        #expect(try await fixture.operations().first?.attempted == false)
        try await fixture.todo.delete(["id": "x"])
        #expect(try await fixture.operations().isEmpty)
        #expect(try await fixture.context.push().pushed == 0)
        #expect(await fixture.remote.requests.isEmpty)
    }

    @Test(arguments: StoreKind.allCases, Failure.allCases)
    func aDeleteQueuedBehindAFailingInsertIsFoldedIntoItAndTheQueueDrains(_ kind: StoreKind, _ failure: Failure) async throws {
        let (fixture, suspending) = try await EngineFixture.suspended(kind)
        try await fixture.todo.insert(["id": "x", "text": "A"])
        await suspending.suspendNext(.insert, at: .beforeServer)
        let push = await suspending.parked { try await fixture.context.push() }
        try await fixture.todo.delete(["id": "x", "text": "A"])
        #expect(try await fixture.operations().map(\.kind) == [.insert, .delete])
        await failure.arm(fixture.remote)
        await suspending.resume()
        await #expect(throws: PushError.self) { try await push.value }

        let queued = try await fixture.operations()
        #expect(queued.map(\.kind) == [.delete] && queued.first?.id == 1 && queued.first?.attempted == true)
        try await expectDeletedEverywhere(fixture)
    }

    @Test(arguments: StoreKind.allCases)
    func aQueueJammedByAnInsertWithoutItsItemDrainsThroughTheDeleteBehindIt(_ kind: StoreKind) async throws {
        // A queue written before attempts were recorded: insert (its item gone) and the delete behind it.
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "x", "text": "A"]], table: "TodoItem")
        let queue = OperationStore(dataSource: fixture.store.dataSource)
        try await fixture.store.dataSource.apply([
            queue.saving(TableOperation(id: 1, kind: .insert, table: "TodoItem", itemId: "x", item: nil)),
            queue.saving(TableOperation(id: 2, kind: .delete, table: "TodoItem", itemId: "x", item: ["id": "x", "text": "A"])),
            queue.advancingCounter(to: 2),
        ])
        try await expectDeletedEverywhere(fixture)
        #expect(await fixture.remote.requests.filter { $0.hasPrefix("DELETE") } == ["DELETE TodoItem/x"])
    }

    @Test(arguments: StoreKind.allCases)
    func anUpdatedInsertWhoseFirstAttemptLandedIsResentAsAnUpdateWithoutAConflict(_ kind: StoreKind) async throws {
        let handler = FixedResolution(.fail)
        let fixture = try await EngineFixture(kind, handler: handler)
        try await insertLosingTheAnswer(fixture)
        try await fixture.todo.update(["id": "x", "text": "B"])
        await fixture.remote.clearRequests()

        #expect(try await fixture.context.push().pushed == 1)
        #expect(await fixture.remote.requests == ["POST TodoItem/x", "PATCH TodoItem/x"])
        #expect(await handler.conflicts.isEmpty)
        #expect(await fixture.remote.item(id: "x", table: "TodoItem")?["text"] == "B")
        #expect(try await fixture.todo.read(id: "x")?["version"] == (await fixture.remote.item(id: "x", table: "TodoItem"))?["version"])
    }

    @Test(arguments: StoreKind.allCases)
    func anInsertMeetingAnotherWritersRowIsStillAConflict(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await insertLosingTheAnswer(fixture)
        // Another client changed the row after our attempt landed.
        await fixture.remote.serverUpdate(id: "x", table: "TodoItem", fields: ["text": "theirs"])
        try await fixture.todo.update(["id": "x", "text": "B"])

        let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
        #expect(error?.errors.first?.statusCode == 409)
        #expect(try await fixture.operations().map(\.kind) == [.insert])
    }

    /// How an insert of `x` meets another writer's row `x` (text "theirs") on the server.
    enum OtherWritersRow: String, Sendable, CaseIterable, CustomTestStringConvertible {
        /// The row was there first: the insert is answered 409.
        case answered409
        /// The row was there first, and the insert's answer (its 409) was lost.
        case lost409
        /// The insert landed and its answer was lost; then another writer changed the row.
        case changedAfterALostAnswer
        var testDescription: String { rawValue }
    }

    /// Queues an insert of `x` ("A") that meets another writer's row as `row` says (pushed without a conflict handler),
    /// then a local delete of `x`.
    private func deleteAfterAnInsertMeeting(_ row: OtherWritersRow, _ fixture: EngineFixture) async throws {
        if row != .changedAfterALostAnswer { await fixture.remote.seed([["id": "x", "text": "theirs"]], table: "TodoItem") }
        try await fixture.todo.insert(["id": "x", "text": "A"])
        switch row {
        case .answered409: break
        case .lost409: await fixture.remote.failNext(1, with: .network("the 409 was lost"), on: .insert)
        case .changedAfterALostAnswer: await fixture.remote.loseNextResponses(1, on: .insert)
        }
        await #expect(throws: PushError.self) { try await fixture.context.push() }
        if row == .changedAfterALostAnswer {
            await fixture.remote.serverUpdate(id: "x", table: "TodoItem", fields: ["text": "theirs"])
        }
        try await fixture.todo.delete(["id": "x", "text": "A"])
        #expect(try await fixture.operations().map(\.kind) == [.delete])
    }

    @Test(arguments: StoreKind.allCases, OtherWritersRow.allCases)
    func aDeleteAfterAnInsertMeetingAnotherWritersRowGoesToTheConflictHandler(_ kind: StoreKind, _ row: OtherWritersRow) async throws {
        let handler = FixedResolution(.fail)
        var fixture = try await EngineFixture(kind)
        try await deleteAfterAnInsertMeeting(row, fixture)
        try await fixture.restart(handler: handler)
        let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
        #expect(await fixture.remote.item(id: "x", table: "TodoItem")?["deleted"] == false, "the other writer's row is kept")
        #expect(await fixture.remote.requestLog.filter { $0.method == .delete && $0.ifMatch == nil }.isEmpty)
        let conflicts = await handler.conflicts
        #expect(conflicts.count == 1 && conflicts.first?.serverItem?["text"] == "theirs")
        #expect(error?.errors.first?.serverItem?["text"] == "theirs")
        #expect(try await fixture.operations().map(\.kind) == [.delete])
    }

    @Test(arguments: StoreKind.allCases)
    func aDeleteOfAnotherWritersRowTheHandlerAcceptsCarriesTheVersionTheServerShowed(_ kind: StoreKind) async throws {
        var fixture = try await EngineFixture(kind)
        try await deleteAfterAnInsertMeeting(.answered409, fixture)
        try await fixture.restart(handler: FixedResolution(.useClient))
        let shown = try #require(await fixture.remote.item(id: "x", table: "TodoItem")?["version"]?.stringValue)
        #expect(try await fixture.context.push().pushed == 1)
        let deletes = await fixture.remote.requestLog.filter { $0.method == .delete }
        #expect(deletes.map(\.ifMatch) == [shown])
        #expect(await fixture.remote.item(id: "x", table: "TodoItem")?["deleted"] == true)
    }
}
