import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// A push with several operations in flight: as many as asked, references kept in order, and every guarantee of a
/// one-at-a-time push (errors collected, a 401 stopping new requests, lost answers and cancellation ending well).
struct ConcurrentPushTests {
    /// A context over `kind` whose back end takes `latency` per request and enforces the `ref` field (an id of a
    /// `TodoItem`, or of a `Parent` for `Child` items).
    static func fixture(_ kind: StoreKind, latency: Duration = .milliseconds(5), relations: [TableRelation] = [])
        async throws -> (EngineFixture, ProbingRemote, SyncContext) {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.setLatency(latency)
        let probe = ProbingRemote(fixture.remote, references: ["ref": "TodoItem", "parent": "Parent"])
        let context = SyncContext(dataSource: fixture.store.dataSource, remote: probe, relations: relations)
        return (fixture, probe, context)
    }

    @Test func anInProcessBackEndIsPushedOneAtATime() async throws {
        let fixture = try await EngineFixture(.inMemory)
        let probe = ProbingRemote(fixture.remote)
        let context = SyncContext(dataSource: fixture.store.dataSource, remote: probe)
        for index in 0..<40 { try await context.table("TodoItem").insert(["id": .string("i\(index)")]) }
        #expect(try await context.push(settings: PushSettings(maximumConcurrentRequests: 8)).pushed == 40)
        #expect(await probe.maximumInFlight == 1, "requests that take no time gain nothing in flight")
    }

    @Test func requestsThatABusyMachineDelaysNowAndThenDoNotWidenAnInProcessPush() async throws {
        let fixture = try await EngineFixture(.inMemory)
        let probe = ProbingRemote(fixture.remote)
        // Slow requests far apart (one alone used to widen the push), so that a loaded machine slowing the requests
        // beside one still does not make three in a row.
        for number in [3, 10, 17, 24, 31] { await probe.delayWrite(number: number, by: .milliseconds(5)) }
        let context = SyncContext(dataSource: fixture.store.dataSource, remote: probe)
        for index in 0..<40 { try await context.table("TodoItem").insert(["id": .string("i\(index)")]) }
        #expect(try await context.push(settings: PushSettings(maximumConcurrentRequests: 8)).pushed == 40)
        #expect(await probe.maximumInFlight == 1)
    }

    @Test func aPushThatFoundTheNetworkSlowStartsTheNextOnesWide() async throws {
        // Answers slow enough that a loaded machine still prepares all eight before the first comes back.
        let (_, probe, context) = try await Self.fixture(.inMemory, latency: .milliseconds(100))
        for index in 0..<4 { try await context.table("TodoItem").insert(["id": .string("a\(index)")]) }
        try await context.push(settings: PushSettings(maximumConcurrentRequests: 8))
        #expect(await probe.maximumInFlight == 1, "three went alone, then only one was left")
        for index in 0..<8 { try await context.table("TodoItem").insert(["id": .string("b\(index)")]) }
        try await context.push(settings: PushSettings(maximumConcurrentRequests: 8))
        #expect(await probe.maximumInFlight == 8, "the second push started with eight in flight")
    }

    @Test(arguments: StoreKind.allCases, [1, 8])
    func asManyOperationsAsAskedAreInFlightAtOnce(_ kind: StoreKind, _ concurrency: Int) async throws {
        // Answers slow enough that a loaded machine still prepares all eight before the first comes back.
        let (fixture, probe, context) = try await Self.fixture(kind, latency: .milliseconds(concurrency > 1 ? 100 : 5))
        for index in 0..<40 { try await context.table("TodoItem").insert(["id": .string("i\(index)")]) }
        let result = try await context.push(settings: PushSettings(maximumConcurrentRequests: concurrency))
        #expect(result.pushed == 40)
        #expect(await probe.maximumInFlight == concurrency)
        #expect(await fixture.remote.items(table: "TodoItem").count == 40)
        #expect(try await context.pendingOperations().isEmpty)
    }

    /// Insert r1, insert r2, then make r1 refer to r2: the update collapses into r1's insert, ahead of r2's in the
    /// queue; sent in queue order, r1 would reach a server that enforces the reference before r2 exists.
    @Test(arguments: StoreKind.allCases, [1, 8])
    func anInsertReferringToALaterInsertIsSentAfterIt(_ kind: StoreKind, _ concurrency: Int) async throws {
        let relation = TableRelation(table: "TodoItem", field: "ref", referencedTable: "TodoItem")
        let (fixture, _, context) = try await Self.fixture(kind, relations: [relation])
        let todo = context.table("TodoItem")
        try await todo.insert(["id": "r1"])
        try await todo.insert(["id": "r2"])
        try await todo.update(["id": "r1", "ref": "r2"])
        try await context.push(settings: PushSettings(maximumConcurrentRequests: concurrency))
        #expect(await fixture.remote.requests == ["POST TodoItem/r2", "POST TodoItem/r1"])
        #expect(await fixture.remote.item(id: "r1", table: "TodoItem")?["ref"] == "r2")
    }

    @Test(arguments: StoreKind.allCases)
    func anItemReferringToADeclaredFailedInsertIsNotSentAndGetsAnError(_ kind: StoreKind) async throws {
        let relation = TableRelation(table: "Child", field: "parent", referencedTable: "Parent")
        let (fixture, _, context) = try await Self.fixture(kind, relations: [relation])
        try await context.table("Parent").insert(["id": "p"])
        try await context.table("Child").insert(["id": "c", "parent": "p"])
        try await context.table("Child").insert(["id": "other"])
        await fixture.remote.failNext(1, with: .server(status: 500, message: "boom"), on: .insert)
        let error = await #expect(throws: PushError.self) { try await context.push(settings: PushSettings(maximumConcurrentRequests: 8)) }
        #expect(error?.errors.map(\.operation.itemId).sorted() == ["c", "p"])
        #expect(error?.errors.first { $0.operation.itemId == "c" }?.message.contains("Parent p") == true)
        #expect(await !fixture.remote.requests.contains("POST Child/c"))
        #expect(await fixture.remote.items(table: "Child").map(\.["id"]) == ["other"])
        // Once the parent goes through, the child follows.
        try await context.push(settings: PushSettings(maximumConcurrentRequests: 8))
        #expect(await fixture.remote.items(table: "Child").count == 2)
    }

    /// A declared relation holds a delete back until the items of the referring table are pushed, even when their
    /// new content no longer names the deleted item (the server still holds the old reference until then).
    @Test(arguments: StoreKind.allCases)
    func aDeleteOfAReferredItemWaitsForTheReferringItemsOperations(_ kind: StoreKind) async throws {
        let relation = TableRelation(table: "Child", field: "parent", referencedTable: "Parent")
        let (fixture, _, context) = try await Self.fixture(kind, relations: [relation])
        await fixture.remote.seed([["id": "p"], ["id": "q"]], table: "Parent")
        await fixture.remote.seed([["id": "c", "parent": "p"]], table: "Child")
        try await context.table("Parent").pull()
        try await context.table("Child").pull()
        let parent = try #require(try await context.table("Parent").read(id: "p"))
        try await context.table("Parent").delete(parent)
        var child = try #require(try await context.table("Child").read(id: "c"))
        child["parent"] = "q"
        try await context.table("Child").update(child)
        try await context.push(settings: PushSettings(maximumConcurrentRequests: 8))
        let writes = await fixture.remote.requests.filter { !$0.hasPrefix("GET") }
        #expect(writes == ["PATCH Child/c", "DELETE Parent/p"])
    }

    @Test(arguments: StoreKind.allCases)
    func aCycleOfReferencesIsSentInQueueOrder(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let todo = fixture.todo
        try await todo.insert(["id": "x", "todoItemId": "y"])
        try await todo.insert(["id": "y", "todoItemId": "x"])
        try await fixture.context.push(settings: PushSettings(maximumConcurrentRequests: 8))
        #expect(await fixture.remote.requests == ["POST TodoItem/x", "POST TodoItem/y"])
    }

    @Test(arguments: StoreKind.allCases)
    func a401StopsNewRequestsAndTheOnesInFlightAreRecorded(_ kind: StoreKind) async throws {
        let (fixture, probe, context) = try await Self.fixture(kind, latency: .milliseconds(20))
        for index in 0..<30 { try await context.table("TodoItem").insert(["id": .string(String(format: "i%02d", index))]) }
        // The first three requests go alone (they show the network is slow); the 401 answers the first of the eight
        // after them.
        await probe.failWrite(number: 4, with: .unauthorized)
        let error = await #expect(throws: PushError.self) { try await context.push(settings: PushSettings(maximumConcurrentRequests: 8)) }
        #expect(error?.reason == .unauthorized)
        #expect(await fixture.remote.requests.count == 10, "the first three, then the seven in flight with the refused one; none after")
        #expect(await probe.maximumInFlight > 1, "several were in flight when the 401 came back")
        let onServer = await fixture.remote.items(table: "TodoItem")
        #expect(onServer.count == 10)
        for row in onServer {
            let id = try #require(row["id"]?.stringValue)
            #expect(try await context.table("TodoItem").read(id: id) == row, "the answer of \(id) was stored")
        }
        #expect(try await context.pendingOperations().count == 20)
        #expect(try await context.push(settings: PushSettings(maximumConcurrentRequests: 8)).pushed == 20)
    }

    @Test(arguments: StoreKind.allCases)
    func lostAnswersAtEightInFlightAreRecognisedByTheNextPush(_ kind: StoreKind) async throws {
        let (fixture, _, context) = try await Self.fixture(kind)
        let todo = context.table("TodoItem")
        for index in 0..<24 { try await todo.insert(["id": .string("i\(index)"), "text": "first"]) }
        try await context.push(settings: PushSettings(maximumConcurrentRequests: 8))
        for index in 0..<24 {
            var item = try #require(try await todo.read(id: "i\(index)"))
            item["text"] = "second"
            try await todo.update(item)
        }
        await fixture.remote.loseNextResponses(5)
        await #expect(throws: PushError.self) { try await context.push(settings: PushSettings(maximumConcurrentRequests: 8)) }
        try await context.push(settings: PushSettings(maximumConcurrentRequests: 8))
        #expect(try await context.operationErrors().isEmpty)
        let onServer = await fixture.remote.items(table: "TodoItem")
        #expect(onServer.count == 24 && onServer.allSatisfy { $0["text"] == "second" })
        for row in onServer {
            #expect(try await todo.read(id: try #require(row["id"]?.stringValue)) == row)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aPushCancelledWithEightInFlightLeavesTheRestQueuedAndTheNextPushEndsIt(_ kind: StoreKind) async throws {
        let (fixture, _, context) = try await Self.fixture(kind, latency: .milliseconds(40))
        for index in 0..<40 { try await context.table("TodoItem").insert(["id": .string("i\(index)")]) }
        let push = Task { try await context.push(settings: PushSettings(maximumConcurrentRequests: 8)) }
        #expect(await eventually { await fixture.remote.items(table: "TodoItem").count >= 8 })
        push.cancel()
        let error = await #expect(throws: PushError.self) { try await push.value }
        #expect(error?.reason == .cancelled)
        #expect(try await context.operationErrors().isEmpty)
        let left = try await context.pendingOperations().count
        #expect(left > 0 && left < 40)
        try await context.push(settings: PushSettings(maximumConcurrentRequests: 8))
        #expect(await fixture.remote.items(table: "TodoItem").count == 40)
        #expect(try await context.pendingOperations().isEmpty)
        #expect(try await context.operationErrors().isEmpty)
    }
}
