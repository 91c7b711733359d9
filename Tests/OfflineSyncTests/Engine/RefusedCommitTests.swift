import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// A store that refuses the commit of one step of a push: the push fails with the store's error, no operation stays
/// in flight (so it can be discarded or purged at once), and the next push sends everything.
struct RefusedCommitTests {
    /// The push's own applies after the local writes, refused one at a time: whichever step's commit is refused
    /// (preparing a send, marking operations attempted, finishing one and preparing the next), the context keeps
    /// working and nothing stays in flight.
    @Test(arguments: [1, 4], 1...6)
    func aRefusedCommitOfAPushStepLeavesNothingInFlight(_ inFlight: Int, _ refused: Int) async throws {
        let store = FailingDataSource()
        let remote = InMemoryRemote()
        let context = SyncContext(dataSource: store, remote: remote)
        for index in 0..<3 { try await context.table("T").insert(["id": .string("r\(index)")]) }
        let writes = await store.applyCalls
        await store.setFailingApplies(numbered: [writes + refused])
        _ = try? await context.push(settings: PushSettings(maximumConcurrentRequests: inFlight))
        await store.setFailingApplies(numbered: [])
        #expect(try await context.operationsInFlight().isEmpty)
        _ = try await context.push(settings: PushSettings(maximumConcurrentRequests: inFlight))
        #expect(try await context.pendingOperations().isEmpty)
        #expect(await remote.items(table: "T").count == 3)
    }

    /// The commit that finishes a pushed update is refused: the version the push produced is not remembered as this
    /// device's own, as a fresh context on the same store would not remember it.
    @Test func aRefusedFinishRecordsNoOwnVersion() async throws {
        let store = FailingDataSource()
        let remote = InMemoryRemote()
        await remote.seed([["id": "x", "text": "a"]], table: "T")
        let context = SyncContext(dataSource: store, remote: remote)
        try await context.table("T").pull()
        var item = try #require(try await context.table("T").read(id: "x"))
        let version = item["version"]?.stringValue
        item["text"] = "b"
        try await context.table("T").update(item)
        // The push clears errors, prepares the send, then finishes it: the third apply.
        await store.setFailingApplies(numbered: [await store.applyCalls + 3])
        await #expect(throws: FailingDataSource.InjectedFailure.self) { _ = try await context.push(settings: .oneAtATime) }
        #expect(await context.ownVersionReplacing(version, table: "T", itemId: "x") == nil)
        await store.setFailingApplies(numbered: [])
        _ = try await context.push()
        #expect(await context.ownVersionReplacing(version, table: "T", itemId: "x") != nil, "once the finish is stored")
    }

    /// The defect: the commit that prepares an operation's send is refused after the operation was marked in flight;
    /// it stayed so until the process ended, and discarding it threw `operationInFlight`.
    @Test func anOperationWhosePreparationWasRefusedCanBeDiscarded() async throws {
        let store = FailingDataSource()
        let context = SyncContext(dataSource: store, remote: InMemoryRemote())
        try await context.table("T").insert(["id": "x"])
        // A push's first apply clears the errors of what it will send; its second prepares the first send, marking it
        // attempted: that one is refused.
        await store.setFailingApplies(numbered: [await store.applyCalls + 2])
        await #expect(throws: FailingDataSource.InjectedFailure.self) { _ = try await context.push() }
        await store.setFailingApplies(numbered: [])
        let operation = try #require(try await context.pendingOperations().first)
        try await context.discard(operation, keepingLocalItem: true)
        #expect(try await context.pendingOperations().isEmpty)
    }
}

extension SyncContext {
    /// The version this context's own pushes replaced `version` with, as it remembers them.
    func ownVersionReplacing(_ version: String?, table: String, itemId: String) -> String? {
        mirror.ownVersions.replacement(for: version, table: table, itemId: itemId)
    }

    /// The operations marked in flight on the context's store, read as the engine reads them (in a transaction).
    func operationsInFlight() async throws -> Set<Int64> {
        try await transaction { _ in shared.inFlight }
    }
}
