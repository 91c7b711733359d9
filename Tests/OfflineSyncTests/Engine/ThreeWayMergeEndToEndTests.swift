import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Two devices on the in-process back end, each with nothing but `ThreeWayMerge()`: edits of different fields from
/// one base both survive, on the server and on both devices.
struct ThreeWayMergeEndToEndTests {
    private static func devices(_ kind: StoreKind) async throws -> (InMemoryRemote, SyncContext, SyncContext, [TestStore]) {
        let remote = InMemoryRemote()
        await remote.seed([["id": "x", "text": "buy milk", "complete": false, "priority": 1]], table: "TodoItem")
        let stores = [try await kind.makeStore(), try await kind.makeStore()]
        let contexts = stores.map { SyncContext(dataSource: $0.dataSource, remote: remote, conflictHandler: ThreeWayMerge()) }
        for context in contexts { try await context.table("TodoItem").pull() }
        return (remote, contexts[0], contexts[1], stores)
    }

    private static func edit(_ context: SyncContext, _ fields: JSONObject) async throws {
        var item = try #require(try await context.table("TodoItem").read(id: "x"))
        for (name, value) in fields { item[name] = value }
        try await context.table("TodoItem").update(item)
    }

    @Test(arguments: StoreKind.allCases)
    func differentFieldsEditedOnTwoDevicesBothSurvive(_ kind: StoreKind) async throws {
        let (remote, deviceA, deviceB, _) = try await Self.devices(kind)
        try await Self.edit(deviceA, ["text": "buy oat milk"])
        try await Self.edit(deviceB, ["complete": true, "priority": 3])
        _ = try await deviceB.push()
        _ = try await deviceA.push()
        try await deviceB.table("TodoItem").pull()
        let server = try #require(await remote.item(id: "x", table: "TodoItem"))
        for copy in [server, try await deviceA.table("TodoItem").read(id: "x"), try await deviceB.table("TodoItem").read(id: "x")] {
            #expect(copy?["text"] == "buy oat milk" && copy?["complete"] == true && copy?["priority"] == 3)
        }
        #expect(try await deviceA.pendingOperationCount() == 0)
    }

    /// A local delete of an item the other device changed since: by default the server's change wins, so the item
    /// comes back on the deleting device instead of being deleted over an edit it never saw.
    @Test(arguments: StoreKind.allCases)
    func aDeleteOfAnItemChangedMeanwhileGivesWayToTheChange(_ kind: StoreKind) async throws {
        let (remote, deviceA, deviceB, _) = try await Self.devices(kind)
        let stale = try #require(try await deviceA.table("TodoItem").read(id: "x"))
        try await Self.edit(deviceB, ["text": "buy oat milk"])
        _ = try await deviceB.push()
        try await deviceA.table("TodoItem").delete(stale)
        _ = try await deviceA.push()
        #expect(await remote.item(id: "x", table: "TodoItem")?["deleted"] == false)
        #expect(try await deviceA.table("TodoItem").read(id: "x")?["text"] == "buy oat milk")
    }
}
