import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// References no relation declares: only a field named by convention after a table (`tagId` for `Tag`) is one, and
/// it orders the push at most: a failed insert never refuses an operation over it.
struct InferredReferenceTests {
    @Test(arguments: StoreKind.allCases)
    func aFailedInsertDoesNotRefuseAnOperationWhoseFieldMerelyHoldsItsId(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "c1", "color": "blue"]], table: "Car")
        try await fixture.context.table("Car").pull()
        try await fixture.context.table("Tag").insert(["id": "red"])
        var car = try #require(try await fixture.context.table("Car").read(id: "c1"))
        car["color"] = "red"
        try await fixture.context.table("Car").update(car)
        await fixture.remote.failNext(1, with: .server(status: 400, message: "bad tag"), on: .insert)
        let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
        #expect(error?.errors.map(\.operation.itemId) == ["red"], "\(error?.errors.map(\.message) ?? [])")
        #expect(await fixture.remote.item(id: "c1", table: "Car")?["color"] == "red")
    }

    @Test(arguments: StoreKind.allCases)
    func aFieldNamingATableByConventionOrdersThePushButNeverRefuses(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        // The car is queued before the tag its tagId names: it goes after the tag's insert, and is sent although
        // that insert failed (only a declared relation refuses).
        try await fixture.context.table("Car").insert(["id": "c1", "tagId": "red"])
        try await fixture.context.table("Tag").insert(["id": "red"])
        await fixture.remote.failNext(1, with: .server(status: 400, message: "bad tag"), on: .insert)
        let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
        #expect(await fixture.remote.requests == ["POST Tag/red", "POST Car/c1"])
        #expect(error?.errors.map(\.operation.itemId) == ["red"], "\(error?.errors.map(\.message) ?? [])")
    }
}
