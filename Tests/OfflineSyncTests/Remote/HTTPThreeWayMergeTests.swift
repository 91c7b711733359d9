import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Two devices over HTTP, in both dialects, each with nothing but `ThreeWayMerge()`: edits of different fields from one
/// base both survive (a v3 `PUT` sends the whole merged item).
@Suite(.serialized)
struct HTTPThreeWayMergeTests {
    @Test(arguments: [APIVersion.v2, .v3])
    func differentFieldsEditedOnTwoDevicesBothSurvive(_ version: APIVersion) async throws {
        let server = try TableProtocolServer(version: version)
        defer { server.stop() }
        server.seed([["id": "x", "text": "buy milk", "complete": false, "priority": 1]], table: "T")
        let devices = (0..<2).map { _ in
            SyncContext(dataSource: InMemoryDataSource(), remote: HTTPRemote(baseURL: server.baseURL, apiVersion: version),
                        conflictHandler: ThreeWayMerge())
        }
        for device in devices { try await device.table("T").pull() }
        var onA = try #require(try await devices[0].table("T").read(id: "x"))
        onA["text"] = "buy oat milk"
        try await devices[0].table("T").update(onA)
        var onB = try #require(try await devices[1].table("T").read(id: "x"))
        onB["complete"] = true
        onB["priority"] = 3
        try await devices[1].table("T").update(onB)
        _ = try await devices[1].push()
        _ = try await devices[0].push()
        try await devices[1].table("T").pull()
        let copies = [server.rows("T")["x"], try await devices[0].table("T").read(id: "x"), try await devices[1].table("T").read(id: "x")]
        for copy in copies {
            #expect(copy?["text"] == "buy oat milk" && copy?["complete"] == true && copy?["priority"] == 3)
        }
    }
}
