import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// An app reads an item, a push of that item's pending change lands meanwhile (moving its version), and the app
/// then writes what it read: the write is based on the device's own content, so it must not conflict with it.
struct StaleReadTests {
    /// Pulls `x`, queues an update to "A", and returns the local item as read while that update was being
    /// pushed, after the push finished.
    private func readDuringPush(_ kind: StoreKind) async throws -> (EngineFixture, JSONObject) {
        let (fixture, suspending) = try await EngineFixture.suspended(kind)
        await fixture.remote.seed([["id": "x", "text": "server"]], table: "TodoItem")
        try await fixture.todo.pull()
        var item = try #require(try await fixture.todo.read(id: "x"))
        item["text"] = "A"
        try await fixture.todo.update(item)
        await suspending.suspendNext(.update, at: .afterServer)
        let push = await suspending.parked { try await fixture.context.push() }
        let read = try #require(try await fixture.todo.read(id: "x"))
        await suspending.resume()
        #expect(try await push.value.pushed == 1)
        #expect(try await fixture.todo.read(id: "x")?["version"] != read["version"])
        return (fixture, read)
    }

    @Test(arguments: StoreKind.allCases)
    func anUpdateOfAnItemReadBeforeItsOwnPushLandedIsSentOverTheNewVersion(_ kind: StoreKind) async throws {
        let (fixture, read) = try await readDuringPush(kind)
        var edited = read
        edited["text"] = "B"
        try await fixture.todo.update(edited)
        #expect(try await fixture.context.push().pushed == 1)
        #expect(await fixture.remote.item(id: "x", table: "TodoItem")?["text"] == "B")
        #expect(try await fixture.operations().isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func aDeleteOfAnItemReadBeforeItsOwnPushLandedReachesTheServer(_ kind: StoreKind) async throws {
        let (fixture, read) = try await readDuringPush(kind)
        try await fixture.todo.delete(read)
        #expect(try await fixture.context.push().pushed == 1)
        #expect(await fixture.remote.item(id: "x", table: "TodoItem")?["deleted"] == true)
    }

    @Test(arguments: StoreKind.allCases)
    func anUpdateOfAnItemReadBeforeAnotherWritersChangeWasPulledStillConflicts(_ kind: StoreKind) async throws {
        let (fixture, read) = try await readDuringPush(kind)
        await fixture.remote.serverUpdate(id: "x", table: "TodoItem", fields: ["text": "theirs"])
        try await fixture.todo.pull()
        var edited = read
        edited["text"] = "B"
        try await fixture.todo.update(edited)
        let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
        #expect(error?.errors.first?.statusCode == 412)
    }
}
