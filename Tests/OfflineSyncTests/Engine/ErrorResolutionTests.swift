import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Resolving errors from a real push.
struct ErrorResolutionTests {
    /// Inserts {id: ABC, text: "initial value"}, has its push fail with 500, returns the error.
    private func failedOperation(_ fixture: EngineFixture, kind: TableOperation.Kind = .insert) async throws -> TableOperationError {
        switch kind {
        case .insert: try await fixture.todo.insert(["id": "ABC", "text": "initial value"])
        case .update:
            await fixture.remote.seed([["id": "ABC"]], table: "TodoItem")
            try await fixture.todo.update(["id": "ABC", "text": "initial value"])
        case .delete: try await fixture.todo.delete(["id": "ABC", "text": "initial value"])
        }
        await fixture.remote.failNext(1, with: .server(status: 500, message: "boom"))
        let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
        return try #require(error?.errors.first)
    }

    @Test(arguments: StoreKind.allCases)
    func anErrorCarriesItsOperationAndSurvivesARestart(_ kind: StoreKind) async throws {
        var fixture = try await EngineFixture(kind)
        let error = try await failedOperation(fixture)
        #expect(error.operation.id == 1)
        #expect(error.operation.kind == .insert && error.operation.table == "TodoItem" && error.operation.itemId == "ABC")
        #expect(error.statusCode == 500)
        try await fixture.restart()
        let restored = try #require(try await fixture.context.operationErrors().first)
        #expect(restored.operation == error.operation)
        #expect(restored.item == error.item && restored.statusCode == 500 && restored.message == error.message)
    }

    @Test(arguments: StoreKind.allCases)
    func cancelAndDiscardRemovesTheOperationAndTheItem(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let error = try await failedOperation(fixture)
        try await fixture.context.cancelAndDiscard(error)
        #expect(try await fixture.todo.read(id: "ABC") == nil)
        #expect(try await fixture.operations().isEmpty)
        #expect(try await fixture.context.operationErrors().isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func cancelAndDiscardOfOneOperationLeavesTheOthers(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "one"])
        try await fixture.todo.insert(["id": "two"])
        await fixture.remote.failNext(2, with: .server(status: 500, message: "boom"))
        let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
        let first = try #require(error?.errors.first)
        try await fixture.context.cancelAndDiscard(first)
        #expect(try await fixture.rows("TodoItem").map(\.["id"]) == ["two"])
        #expect(try await fixture.operations().map(\.id) == [2])
        #expect(try await fixture.context.operationErrors().map(\.operation.id) == [2])
    }

    @Test(arguments: StoreKind.allCases)
    func cancelAndUpdateStoresTheItemAndDropsTheOperation(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let error = try await failedOperation(fixture)
        try await fixture.context.cancelAndUpdate(error, with: ["id": "ABC", "text": "value two", "version": "v", "updatedAt": "2026-01-01T00:00:00Z"])
        #expect(try await fixture.todo.read(id: "ABC") == ["id": "ABC", "text": "value two", "version": "v"])
        #expect(try await fixture.operations().isEmpty)
    }

    @Test(arguments: [TableOperation.Kind.insert, .update])
    func keepAndUpdateKeepsTheKindAndStoresTheItem(_ operationKind: TableOperation.Kind) async throws {
        let fixture = try await EngineFixture(.inMemory)
        let error = try await failedOperation(fixture, kind: operationKind)
        try await fixture.context.keepAndUpdate(error, with: ["id": "ABC", "text": "value two"])
        #expect(try await fixture.todo.read(id: "ABC")?["text"] == "value two")
        let operations = try await fixture.operations()
        #expect(operations.map(\.kind) == [operationKind])
        #expect(operations.first?.id == error.operation.id)
        #expect(try await fixture.context.push().pushed == 1)
        #expect(await fixture.remote.item(id: "ABC", table: "TodoItem")?["text"] == "value two")
    }

    @Test(arguments: StoreKind.allCases)
    func keepAndUpdateOfADeleteKeepsTheRowAbsentAndUpdatesTheSnapshot(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let error = try await failedOperation(fixture, kind: .delete)
        try await fixture.context.keepAndUpdate(error, with: ["id": "ABC", "text": "value two"])
        #expect(try await fixture.todo.read(id: "ABC") == nil)
        let operation = try #require(try await fixture.operations().first)
        #expect(operation.kind == .delete && operation.item?["text"] == "value two")
    }

    @Test(arguments: StoreKind.allCases)
    func resolvingTwiceThrowsOperationNotFound(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let error = try await failedOperation(fixture)
        try await fixture.context.cancelAndDiscard(error)
        await #expect(throws: SyncError.operationNotFound(operationId: 1, table: "TodoItem", itemId: "ABC")) {
            try await fixture.context.cancelAndUpdate(error, with: ["id": "ABC"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func resolvingAnErrorWhoseOperationChangedSinceThrows(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let error = try await failedOperation(fixture)
        try await fixture.todo.update(["id": "ABC", "text": "edited after the push"])
        await #expect(throws: SyncError.operationChanged(operationId: 1, table: "TodoItem", itemId: "ABC")) {
            try await fixture.context.cancelAndDiscard(error)
        }
        #expect(try await fixture.todo.read(id: "ABC")?["text"] == "edited after the push")
        // The collapse also dropped the stale error row.
        #expect(try await fixture.context.operationErrors().isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func resolvingAReQueuedOperationThrows(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let error = try await failedOperation(fixture)
        try await fixture.todo.delete(["id": "ABC"])          // attempted insert + delete: a delete
        try await fixture.context.push()                      // sent: the op is gone
        try await fixture.todo.insert(["id": "ABC"])          // a new op with a new id
        await #expect(throws: SyncError.self) { try await fixture.context.keepAndUpdate(error, with: ["id": "ABC"]) }
        #expect(try await fixture.operations().map(\.id) == [2])
    }

    @Test func resolutionWithAnotherItemsIdThrows() async throws {
        let fixture = try await EngineFixture(.inMemory)
        let error = try await failedOperation(fixture)
        await #expect(throws: SyncError.self) { try await fixture.context.cancelAndUpdate(error, with: ["id": "OTHER"]) }
        #expect(try await fixture.operations().count == 1)
    }

    /// `x` pulled by an incremental pull, then edited on the server and locally; a pull that does not push first moves
    /// the token past the server's edit (it leaves the item with a pending operation alone). Returns the error of the
    /// push, which `failure` sets up (nothing: the 412 of the server's edit, carrying the server's row).
    private func failedPushPastTheToken(_ fixture: EngineFixture, failure: RemoteError? = nil) async throws -> TableOperationError {
        await fixture.remote.seed([["id": "x", "text": "base"]], table: "TodoItem")
        try await fixture.todo.pull(queryId: "all")
        await fixture.remote.serverUpdate(id: "x", table: "TodoItem", fields: ["text": "theirs"])
        var local = try #require(try await fixture.todo.read(id: "x"))
        local["text"] = "mine"
        try await fixture.todo.update(local)
        try await fixture.todo.pull(queryId: "all", settings: PullSettings(pushFirst: .nothing))
        #expect(try await fixture.todo.read(id: "x")?["text"] == "mine")
        if let failure { await fixture.remote.failNext(1, with: failure, on: .update) }
        let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
        return try #require(error?.errors.first)
    }

    @Test(arguments: StoreKind.allCases)
    func aConflictResolvedWithCancelAndDiscardLeavesTheServersRowOnTheDevice(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let error = try await failedPushPastTheToken(fixture)
        #expect(error.statusCode == 412 && error.serverItem?["text"] == "theirs")
        try await fixture.context.cancelAndDiscard(error)
        try await fixture.todo.pull(queryId: "all")
        #expect(try await fixture.todo.read(id: "x")?["text"] == "theirs")
        #expect(try await fixture.todo.read(id: "x")?["version"] == (await fixture.remote.item(id: "x", table: "TodoItem"))?["version"])
        #expect(try await fixture.operations().isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func anErrorWithoutTheServersRowResolvedWithCancelAndDiscardIsFetchedByTheNextPullAfterARestart(_ kind: StoreKind) async throws {
        var fixture = try await EngineFixture(kind)
        let error = try await failedPushPastTheToken(fixture, failure: .server(status: 500, message: "boom"))
        #expect(error.serverItem == nil)
        try await fixture.context.cancelAndDiscard(error)
        #expect(try await fixture.todo.read(id: "x") == nil)
        try await fixture.restart()
        try await fixture.todo.pull(queryId: "all")
        #expect(try await fixture.todo.read(id: "x")?["text"] == "theirs")
        // Fetched once: the next pull asks only for its incremental page.
        await fixture.remote.clearRequests()
        try await fixture.todo.pull(queryId: "all")
        #expect(await fixture.remote.requestLog.count == 1)
    }
}

/// Changing the kind of a failed operation.
struct OperationKindChangeTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var from: TableOperation.Kind
        var to: TableOperation.Kind
        var testDescription: String { "\(from.rawValue) -> \(to.rawValue)" }
    }

    static let cases = [Case(from: .insert, to: .update), Case(from: .update, to: .update), Case(from: .update, to: .delete),
                        Case(from: .delete, to: .update), Case(from: .delete, to: .insert)]

    @Test(arguments: cases)
    func changingTheKindKeepsThePositionAndMatchesTheLocalRow(_ change: Case) async throws {
        let fixture = try await EngineFixture(.inMemory)
        switch change.from {
        case .insert: try await fixture.todo.insert(["id": "ABC", "text": "initial value"])
        case .update: try await fixture.todo.update(["id": "ABC", "text": "initial value"])
        case .delete: try await fixture.todo.delete(["id": "ABC", "text": "initial value"])
        }
        await fixture.remote.failNext(1, with: .server(status: 500, message: "boom"))
        let pushError = await #expect(throws: PushError.self) { try await fixture.context.push() }
        let error = try #require(pushError?.errors.first)
        try await fixture.context.keepAndUpdate(error, with: ["id": "ABC", "text": "value two"], as: change.to)
        let operation = try #require(try await fixture.operations().first)
        #expect(operation.kind == change.to && operation.id == error.operation.id)
        let row = try await fixture.todo.read(id: "ABC")
        if change.to == .delete {
            #expect(row == nil)
            #expect(operation.item?["text"] == "value two")
        } else {
            #expect(row?["text"] == "value two")
        }
    }
}
