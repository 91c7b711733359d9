import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Push against the in-memory back end.
struct PushTests {
    @Test(arguments: StoreKind.allCases)
    func pushSendsInsertsWithoutSystemPropertiesAndStoresTheServerCopy(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a", "text": "milk", "version": "stale", "updatedAt": "2020-01-01T00:00:00.000Z", "__x": 1])
        let result = try await fixture.context.push()
        #expect(result.pushed == 1)
        #expect(await fixture.remote.requestLog.first?.body == ["id": "a", "text": "milk", "__x": 1])
        let local = try #require(try await fixture.todo.read(id: "a"))
        #expect(local == (await fixture.remote.item(id: "a", table: "TodoItem")))
        #expect(try await fixture.operations().isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func pushGoesInQueueOrderAcrossTables(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "1"])
        try await fixture.context.table("Other").insert(["id": "2"])
        try await fixture.todo.insert(["id": "3"])
        try await fixture.context.push()
        #expect(await fixture.remote.requests == ["POST TodoItem/1", "POST Other/2", "POST TodoItem/3"])
    }

    @Test(arguments: StoreKind.allCases)
    func emptyQueuePushesNothing(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        #expect(try await fixture.context.push().pushed == 0)
        #expect(await fixture.remote.requests.isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func networkTimeoutAbortsAndKeepsTheOperation(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a"])
        await fixture.remote.failNext(1, with: .network("timeout"))
        let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
        #expect(error?.reason == .network)
        #expect(try await fixture.operations().count == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func perOperationErrorsAreCarriedByTheAbortAndUnsentOperationsStayQueued(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "test1"], ["id": "test2"]], table: "TodoItem")
        try await fixture.todo.update(["id": "test1", "text": "t1", "version": "not-the-server-version"])
        try await fixture.todo.update(["id": "test2", "text": "t2"])
        try await fixture.todo.insert(["id": "test3"])
        try await fixture.todo.insert(["id": "test4"])
        await fixture.remote.failNext(1, with: .network("timeout"), on: .insert)
        let error = await #expect(throws: PushError.self) { try await fixture.context.push(settings: .oneAtATime) }
        #expect(error?.reason == .network)
        #expect(error?.errors.map(\.operation.itemId) == ["test1"])
        #expect(error?.errors.first?.statusCode == 412)
        #expect(await fixture.remote.requests.count == 3)
        #expect(try await fixture.operations().map(\.itemId) == ["test1", "test3", "test4"])
    }

    @Test(arguments: StoreKind.allCases)
    func unauthorizedAbortsThePush(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a"])
        try await fixture.todo.insert(["id": "b"])
        await fixture.remote.failNext(1, with: .unauthorized)
        let error = await #expect(throws: PushError.self) { try await fixture.context.push(settings: .oneAtATime) }
        #expect(error?.reason == .unauthorized)
        #expect(await fixture.remote.requests.count == 1)
        #expect(try await fixture.operations().count == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func aFailedOperationIsRecordedAndThePushGoesOn(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a"])
        try await fixture.todo.insert(["id": "b"])
        await fixture.remote.failNext(1, with: .server(status: 500, message: "boom"))
        let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
        #expect(error?.reason == .operationErrors)
        #expect(error?.errors.map(\.operation.itemId) == ["a"])
        #expect(error?.errors.first?.statusCode == 500)
        #expect(try await fixture.context.operationErrors().map(\.operation.id) == [1])
        #expect(try await fixture.operations().map(\.itemId) == ["a"])
        #expect(await fixture.remote.item(id: "b", table: "TodoItem") != nil)
    }

    @Test(arguments: StoreKind.allCases)
    func errorsOfOnePushNeverBlockTheNext(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a"])
        await fixture.remote.failNext(1, with: .server(status: 500, message: "boom"))
        await #expect(throws: PushError.self) { try await fixture.context.push() }
        #expect(try await fixture.context.push().pushed == 1)
        #expect(try await fixture.context.operationErrors().isEmpty)
        #expect(try await fixture.operations().isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func preconditionFailedOnInsertCarriesServerAndLocalItem(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a", "text": "test name"])
        await fixture.remote.failNext(1, with: .preconditionFailed(serverItem: ["id": "a", "text": "servers name"]))
        let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
        let failure = try #require(error?.errors.first)
        #expect(failure.statusCode == 412)
        #expect(failure.serverItem?["text"] == "servers name")
        #expect(failure.item?["text"] == "test name")
        #expect(failure.operation.item?["text"] == "test name")
    }

    @Test(arguments: StoreKind.allCases)
    func insertAnswered409WithTheSameItemCountsAsSuccess(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "a", "text": "milk"]], table: "TodoItem")
        try await fixture.todo.insert(["id": "a", "text": "milk"])
        #expect(try await fixture.context.push().pushed == 1)
        #expect(try await fixture.todo.read(id: "a")?["version"] != nil)
    }

    @Test(arguments: StoreKind.allCases)
    func insertAnswered409WithOtherContentFails(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "a", "text": "theirs"]], table: "TodoItem")
        try await fixture.todo.insert(["id": "a", "text": "mine"])
        let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
        #expect(error?.errors.first?.statusCode == 409)
        #expect(error?.errors.first?.serverItem?["text"] == "theirs")
    }

    @Test(arguments: [RemoteError.notFound, .gone])
    func deleteOfAnItemAlreadyGoneCountsAsSuccess(_ answer: RemoteError) async throws {
        let fixture = try await EngineFixture(.inMemory)
        try await fixture.todo.delete(["id": "a"])
        await fixture.remote.failNext(1, with: answer)
        #expect(try await fixture.context.push().pushed == 1)
        #expect(try await fixture.operations().isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func deleteOfAnItemSoftDeletedOnTheServerCountsAsSuccess(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "a"]], table: "TodoItem")
        try await fixture.todo.pull()
        let local = try #require(try await fixture.todo.read(id: "a"))
        await fixture.remote.serverDelete(id: "a", table: "TodoItem")
        try await fixture.todo.delete(local)
        #expect(try await fixture.context.push().pushed == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func aLostInsertResponseIsResentAfterACrashAndEndsWell(_ kind: StoreKind) async throws {
        var fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a", "text": "milk"])
        await fixture.remote.loseNextResponses(1)
        await #expect(throws: PushError.self) { try await fixture.context.push() }
        #expect(await fixture.remote.item(id: "a", table: "TodoItem") != nil)
        try await fixture.restart()
        #expect(try await fixture.context.push().pushed == 1)
        #expect(try await fixture.operations().isEmpty)
        #expect(try await fixture.todo.read(id: "a")?["version"] == (await fixture.remote.item(id: "a", table: "TodoItem"))?["version"])
        #expect(await fixture.remote.requests == ["POST TodoItem/a", "POST TodoItem/a"])
    }

    @Test(arguments: StoreKind.allCases)
    func aLostUpdateResponseIsResentAndEndsWell(_ kind: StoreKind) async throws {
        var fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "a", "text": "old"]], table: "TodoItem")
        try await fixture.todo.pull()
        var item = try #require(try await fixture.todo.read(id: "a"))
        item["text"] = "new"
        try await fixture.todo.update(item)
        await fixture.remote.loseNextResponses(1, on: .update)
        await #expect(throws: PushError.self) { try await fixture.context.push() }
        try await fixture.restart()
        #expect(try await fixture.context.push().pushed == 1)
        #expect(try await fixture.todo.read(id: "a")?["text"] == "new")
    }

    @Test(arguments: StoreKind.allCases)
    func aLocalEditDuringAnInFlightPushSurvivesTheResponse(_ kind: StoreKind) async throws {
        let (fixture, suspending) = try await EngineFixture.suspended(kind)
        try await fixture.todo.insert(["id": "a", "text": "first"])
        await suspending.suspendNext(.insert, at: .afterServer)
        let push = await suspending.parked { try await fixture.context.push() }
        // The push is waiting for its answer: reads and local writes still work, and the edit queues a new op.
        #expect(try await fixture.todo.read(id: "a")?["text"] == "first")
        try await fixture.todo.update(["id": "a", "text": "edited"])
        // The second edit collapses into the latest (newest) operation, not the one in flight.
        try await fixture.todo.update(["id": "a", "text": "edited during push"])
        #expect(try await fixture.operations().map(\.kind) == [.insert, .update])
        await suspending.resume()
        #expect(try await push.value.pushed == 2)
        #expect(await fixture.remote.item(id: "a", table: "TodoItem")?["text"] == "edited during push")
        #expect(try await fixture.todo.read(id: "a")?["text"] == "edited during push")
    }

    @Test(arguments: StoreKind.allCases)
    func theServerAnswerIsNotStoredWhileANewerOperationIsQueued(_ kind: StoreKind) async throws {
        let (fixture, suspending) = try await EngineFixture.suspended(kind)
        try await fixture.todo.insert(["id": "a", "text": "first"])
        try await fixture.todo.insert(["id": "b"])
        await suspending.suspendNext(.insert, at: .afterServer)
        let push = await suspending.parked { try await fixture.context.push() }
        try await fixture.todo.update(["id": "a", "text": "local"])
        await fixture.remote.failNext(1, with: .server(status: 500, message: "later"), on: .update)
        await suspending.resume()
        await #expect(throws: PushError.self) { try await push.value }
        // The local edit survives; it only gains the version the server gave the first write, so that the
        // queued update does not conflict with this device's own earlier write.
        let serverVersion = await fixture.remote.item(id: "a", table: "TodoItem")?["version"]
        #expect(serverVersion != nil)
        #expect(try await fixture.todo.read(id: "a") == ["id": "a", "text": "local", "version": serverVersion ?? nil])
    }

    @Test(arguments: StoreKind.allCases)
    func cancellingAPushStopsBetweenOperationsAndKeepsTheRestQueued(_ kind: StoreKind) async throws {
        let (fixture, suspending) = try await EngineFixture.suspended(kind)
        try await fixture.todo.insert(["id": "a"])
        try await fixture.todo.insert(["id": "b"])
        await suspending.suspendNext(.insert, at: .afterServer)
        let push = await suspending.cancelWhileParked { try await fixture.context.push(settings: .oneAtATime) }
        let error = await #expect(throws: PushError.self) { try await push.value }
        #expect(error?.reason == .cancelled)
        // The answer that arrived was recorded; the next operation was not sent.
        #expect(try await fixture.operations().map(\.itemId) == ["b"])
        #expect(await fixture.remote.requests == ["POST TodoItem/a"])
        #expect(try await fixture.todo.read(id: "a")?["version"] != nil)
        #expect(try await fixture.context.push().pushed == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func aPushOfACancelledTaskSendsNothingAndLeavesTheOperationQueued(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a"])
        let push = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await fixture.context.push()
        }
        await expectCancelledWithoutErrors(push)
        #expect(try await fixture.operations().map { [$0.id, $0.revision] } == [[1, 0]])
        #expect(try await fixture.context.operationErrors().isEmpty)
        #expect(await fixture.remote.requests.isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func pushAndPullOfOneContextRunOneAtATime(_ kind: StoreKind) async throws {
        let (fixture, suspending) = try await EngineFixture.suspended(kind)
        try await fixture.todo.insert(["id": "a"])
        await suspending.suspendNext(.insert, at: .beforeServer)
        let push = await suspending.parked { try await fixture.context.push() }
        // The push holds the sync gate, parked inside its request. Run the pull until it either queues behind
        // the gate (right) or reaches the remote (serialisation broken): whichever happens first ends the wait.
        let pull = Task { try await fixture.context.table("Other").pull() }
        let gate = await fixture.context.syncGate
        var rounds = 0
        while await gate.waitingCount == 0, await fixture.remote.requests.isEmpty {
            rounds += 1
            try #require(rounds < 1_000_000, "the pull neither queued at the gate nor reached the remote")
            await Task.yield()
        }
        #expect(await fixture.remote.requests.isEmpty)
        #expect(await gate.waitingCount == 1)
        await suspending.resume()
        #expect(try await push.value.pushed == 1)
        try await pull.value
        #expect(await fixture.remote.requests == ["POST TodoItem/a", "GET Other"])
        #expect(await gate.waitingCount == 0)
    }
}

extension PushTests {
    @Test(arguments: StoreKind.allCases)
    func aDeleteDuringAnInFlightInsertIsNotUndoneByTheResponse(_ kind: StoreKind) async throws {
        let (fixture, suspending) = try await EngineFixture.suspended(kind)
        try await fixture.todo.insert(["id": "a", "text": "first"])
        await suspending.suspendNext(.insert, at: .afterServer)
        let push = await suspending.parked { try await fixture.context.push() }
        try await fixture.todo.delete(["id": "a"])
        #expect(try await fixture.operations().map(\.kind) == [.insert, .delete])
        await suspending.resume()
        #expect(try await push.value.pushed == 2)
        #expect(try await fixture.todo.read(id: "a") == nil)
        #expect(await fixture.remote.items(table: "TodoItem").isEmpty)
        #expect(await fixture.remote.requests == ["POST TodoItem/a", "DELETE TodoItem/a"])
    }
}
