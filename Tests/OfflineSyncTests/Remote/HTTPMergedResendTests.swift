import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// A conflict handler's merged resend whose answers are lost: the other device's change survives, in both dialects.
@Suite(.serialized)
struct HTTPMergedResendTests {
    /// Merges by the union of the `tags` of the local and the server copy, and runs `beforeResend` each time.
    struct TagUnion: ConflictHandler {
        var beforeResend: @Sendable () async -> Void = {}

        static func tags(_ item: JSONObject?) -> Set<Int64> {
            guard case .array(let values)? = item?["tags"] else { return [] }
            return Set(values.compactMap(\.intValue))
        }

        static func value(_ tags: Set<Int64>) -> JSONValue { .array(tags.sorted().map { .int($0) }) }

        func resolve(_ conflict: SyncConflict) async throws -> ConflictResolution {
            guard var merged = conflict.serverItem, !SystemProperties.isDeleted(merged) else { return .fail }
            merged["tags"] = Self.value(Self.tags(conflict.localItem).union(Self.tags(conflict.serverItem)))
            await beforeResend()
            return .useMerged(merged)
        }
    }

    static func remote(_ server: TableProtocolServer, _ version: APIVersion, attempts: Int = 3) -> HTTPRemote {
        var configuration = HTTPRemoteConfiguration(timeout: .seconds(20))
        configuration.retryPolicy = HTTPRetryPolicy(maximumAttempts: attempts, initialDelay: .milliseconds(5))
        return HTTPRemote(baseURL: server.baseURL, apiVersion: version, configuration: configuration)
    }

    /// Gives item `x` of table `T` the tags `tags`, locally on `context`.
    static func setTags(_ tags: Set<Int64>, on context: SyncContext) async throws {
        var item = try #require(try await context.table("T").read(id: "x"))
        item["tags"] = TagUnion.value(tags)
        try await context.table("T").update(item)
    }

    /// Devices A (with `handlerOfA`) and B, both having pulled item `x`, once B added tag 2 and pushed it.
    static func deviceBAddedTag2(_ server: TableProtocolServer, _ version: APIVersion,
                                 handlerOfA: any ConflictHandler) async throws -> (SyncContext, SyncContext) {
        let deviceA = SyncContext(dataSource: InMemoryDataSource(), remote: remote(server, version), conflictHandler: handlerOfA)
        let deviceB = SyncContext(dataSource: InMemoryDataSource(), remote: remote(server, version))
        try await deviceA.table("T").pull()
        try await deviceB.table("T").pull()
        try await setTags([2], on: deviceB)
        _ = try await deviceB.push()
        return (deviceA, deviceB)
    }

    /// Device B adds tag 2 and pushes; device A adds tag 1 to its stale copy and pushes, meets the 412, merges {1, 2},
    /// and the merged resend lands but its answer and every retry's answer are lost. A's next push must not send its
    /// pre-merge content over the merged row (which erased tag 2 before): the row keeps {1, 2} everywhere.
    @Test(arguments: [APIVersion.v2, .v3])
    func aLostAnswerToAMergedResendKeepsTheOtherDevicesChange(_ version: APIVersion) async throws {
        let server = try TableProtocolServer(version: version)
        defer { server.stop() }
        server.seed([["id": "x", "tags": .array([])]], table: "T")
        let dropping = LockedValue(true)
        let handler = TagUnion {
            if dropping.withLock({ $0 }) { server.dropWriteAnswers(every: 1) }
        }
        let (deviceA, deviceB) = try await Self.deviceBAddedTag2(server, version, handlerOfA: handler)
        try await Self.setTags([1], on: deviceA)
        await #expect(throws: PushError.self) { _ = try await deviceA.push() }
        #expect(TagUnion.tags(server.rows("T")["x"]) == [1, 2], "the merged resend landed; only its answers were lost")
        #expect(server.droppedAnswers >= 1)

        dropping.withLock { $0 = false }
        server.dropWriteAnswers(every: nil)
        _ = try await deviceA.push()
        try await deviceB.table("T").pull()
        #expect(TagUnion.tags(server.rows("T")["x"]) == [1, 2])
        #expect(TagUnion.tags(try await deviceA.table("T").read(id: "x")) == [1, 2])
        #expect(TagUnion.tags(try await deviceB.table("T").read(id: "x")) == [1, 2])
        #expect(try await deviceA.pendingOperationCount() == 0)
    }

    /// The same lost answers, but the user edits the item on device A (adds tag 3) while the handler merges: the merged
    /// content is not what A holds now, so A's next push meets a conflict again and the handler merges all three.
    @Test(arguments: [APIVersion.v2, .v3])
    func aLostAnswerToAMergedResendAfterALocalEditGoesBackToTheHandler(_ version: APIVersion) async throws {
        let server = try TableProtocolServer(version: version)
        defer { server.stop() }
        server.seed([["id": "x", "tags": .array([])]], table: "T")
        let deviceA = LockedValue<SyncContext?>(nil)
        let firstResolution = LockedValue(true)
        let handler = TagUnion {
            guard firstResolution.withLock({ first in defer { first = false }; return first }),
                  let context = deviceA.withLock({ $0 }), var local = try? await context.table("T").read(id: "x") else { return }
            local["tags"] = TagUnion.value(TagUnion.tags(local).union([3]))
            _ = try? await context.table("T").update(local)
            server.dropWriteAnswers(every: 1)
        }
        let (contextA, _) = try await Self.deviceBAddedTag2(server, version, handlerOfA: handler)
        deviceA.withLock { $0 = contextA }
        try await Self.setTags([1], on: contextA)
        await #expect(throws: PushError.self) { _ = try await contextA.push() }
        #expect(TagUnion.tags(try await contextA.table("T").read(id: "x")) == [1, 3], "the user's edit is kept locally")

        server.dropWriteAnswers(every: nil)
        _ = try await contextA.push()
        #expect(TagUnion.tags(server.rows("T")["x"]) == [1, 2, 3])
        #expect(TagUnion.tags(try await contextA.table("T").read(id: "x")) == [1, 2, 3])
        #expect(try await contextA.pendingOperationCount() == 0)
    }

    /// Two devices add tags to the same two items in turn, each pushing (and now and then pulling) through a server
    /// that refuses one request in seven with 503, loses one answer in five after acting (a 503 instead), and closes
    /// the connection instead of answering one write in four; pushes keep eight requests in flight, and the remotes do
    /// not retry, so a lost answer reaches the engine. Once the faults stop and both devices sync, every tag either
    /// device added is on the server and on both devices.
    @Test(arguments: [APIVersion.v2, .v3], [UInt64(7), 1_234])
    func twoDevicesMergingUnderLostAnswersLoseNoTag(_ version: APIVersion, _ seed: UInt64) async throws {
        let server = try TableProtocolServer(version: version)
        defer { server.stop() }
        let ids = ["x", "y"]
        server.seed(ids.map { ["id": .string($0), "tags": .array([])] }, table: "T")
        let devices = (0..<2).map { _ in
            SyncContext(dataSource: InMemoryDataSource(), remote: Self.remote(server, version, attempts: 1), conflictHandler: TagUnion())
        }
        for device in devices { try await device.table("T").pull() }
        server.inject(ServerFaults(seed: seed, unavailableOneIn: 7, answerLostOneIn: 5, tokenLifetime: 0))
        server.dropWriteAnswers(every: 4)
        var added: [String: Set<Int64>] = [:]
        for round in 0..<40 {
            let device = devices[round % 2], id = ids[(round / 2) % 2]
            var item = try #require(try await device.table("T").read(id: id))
            item["tags"] = TagUnion.value(TagUnion.tags(item).union([Int64(round)]))
            try await device.table("T").update(item)
            added[id, default: []].insert(Int64(round))
            _ = try? await device.push(settings: PushSettings(maximumConcurrentRequests: 8))
            if round % 5 == 4 { try? await device.table("T").pull() }
        }
        server.inject(nil)
        server.dropWriteAnswers(every: nil)
        for _ in 0..<3 {
            for device in devices {
                _ = try? await device.push(settings: PushSettings(maximumConcurrentRequests: 8))
                try? await device.table("T").pull()
            }
        }
        for device in devices { #expect(try await device.pendingOperationCount() == 0) }
        for id in ids {
            #expect(TagUnion.tags(server.rows("T")[id]) == added[id], "server, item \(id)")
            for device in devices { #expect(TagUnion.tags(try await device.table("T").read(id: id)) == added[id]) }
        }
    }
}
