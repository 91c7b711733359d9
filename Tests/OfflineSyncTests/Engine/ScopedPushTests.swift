import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// `push(tables:)` and what a pull pushes first (`PullSettings.pushFirst`).
struct ScopedPushTests {
    /// Queues inserts a1, b1, a2, b2 alternating between tables A and B.
    private func queueTwoTables(_ fixture: EngineFixture) async throws {
        for (table, id) in [("A", "a1"), ("B", "b1"), ("A", "a2"), ("B", "b2")] {
            try await fixture.context.table(table).insert(["id": .string(id)])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func pushingOneTableLeavesTheOtherTablesOperationsAndErrorsQueuedInOrder(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await queueTwoTables(fixture)
        await fixture.remote.failNext(1, with: .server(status: 500, message: "boom"), on: .insert)
        await #expect(throws: PushError.self) { try await fixture.context.push(tables: ["A"]) }
        #expect(try await fixture.context.operationErrors().map(\.operation.itemId) == ["a1"])

        await fixture.remote.clearRequests()
        #expect(try await fixture.context.push(tables: ["B"]).pushed == 2)
        #expect(await fixture.remote.requests == ["POST B/b1", "POST B/b2"])
        #expect(try await fixture.operations().map { "\($0.id) \($0.itemId)" } == ["1 a1"])
        #expect(try await fixture.context.operationErrors().map(\.operation.itemId) == ["a1"])
    }

    @Test func anEmptySetPushesNothingAndAReservedNameIsRefused() async throws {
        let fixture = try await EngineFixture(.inMemory)
        try await queueTwoTables(fixture)
        #expect(try await fixture.context.push(tables: []).pushed == 0)
        await #expect(throws: SyncError.reservedTable("__operations")) {
            try await fixture.context.push(tables: ["A", "__operations"])
        }
        #expect(await fixture.remote.requests.isEmpty)
        #expect(try await fixture.operations().count == 4)
    }

    @Test(arguments: [
        (PullSettings.PushFirst.tableOperations, ["POST A/a1", "POST A/a2", "GET A"]),
        (.allOperations, ["POST A/a1", "POST B/b1", "POST A/a2", "POST B/b2", "GET A"]),
        (.nothing, ["GET A"]),
    ])
    func aPullPushesWhatItsSettingsSayFirst(_ pushFirst: PullSettings.PushFirst, _ expected: [String]) async throws {
        let fixture = try await EngineFixture(.inMemory)
        try await queueTwoTables(fixture)
        try await fixture.context.table("A").pull(settings: PullSettings(pushFirst: pushFirst))
        #expect(Array(await fixture.remote.requests.prefix(expected.count)) == expected)
    }

    @Test func aPullThatPushesNothingLeavesItemsWithPendingOperationsAlone() async throws {
        let fixture = try await EngineFixture(.inMemory)
        await fixture.remote.seed([["id": "a1", "text": "server"]], table: "A")
        try await fixture.context.table("A").update(["id": "a1", "text": "local"])
        try await fixture.context.table("A").pull(settings: PullSettings(pushFirst: .nothing))
        #expect(try await fixture.context.table("A").read(id: "a1")?["text"] == "local")
        #expect(try await fixture.operations().count == 1)
    }
}
