import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// A device killed with SIGKILL at random moments while it edits items it pulled and pushes them over HTTP (a
/// `journal-crash-child bases`), restarted on the same store each time: after every kill, every pending update has a
/// base, and that base is a copy of the item the server stored (the pulled copy, or the answer to an earlier push),
/// never the device's own unpushed content; at the end one push drains the queue.
@Suite(.serialized)
struct KilledBaseProcessTests {
    /// Kills per dialect; `OFFLINESYNC_SOAK=<kills>` runs more.
    static let rounds = ProcessInfo.processInfo.environment["OFFLINESYNC_SOAK"].flatMap { Int($0) }.map { max($0, 10) } ?? 10

    @Test(arguments: [APIVersion.v2, .v3])
    func basesSurviveKillsAndAreServerCopies(_ apiVersion: APIVersion) async throws {
        let server = try TableProtocolServer(version: apiVersion, responseDelay: .milliseconds(2))
        defer { server.stop() }
        server.seed((0..<6).map { ["id": .string("b\($0)"), "text": "start"] }, table: BaseChild.table)
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var generator = SplitMix64(seed: apiVersion == .v2 ? 11 : 12)
        var checked = 0
        for round in 0..<Self.rounds {
            let child = try CrashChild(["bases", directory.storePath, server.baseURL.absoluteString,
                                        apiVersion == .v2 ? "v2" : "v3", "\(round)"])
            let wanted = Int.random(in: 3...30, using: &generator)
            let lines = await child.readLines { $0.count >= wanted }
            try await Task.sleep(for: .microseconds(Int.random(in: 0...4000, using: &generator)))
            await child.kill()
            _ = await child.readLines { _ in false }
            #expect(!lines.contains { $0.hasPrefix("error") }, "round \(round): \(lines.filter { $0.hasPrefix("error") })")

            let store = try await JournalDataSource(directory: directory.store)
            let context = SyncContext(dataSource: store, remote: HTTPRemote(baseURL: server.baseURL, apiVersion: apiVersion))
            for operation in try await context.pendingOperations() {
                let base = try #require(operation.base, "round \(round): the update of \(operation.itemId) has no base")
                #expect(server.history(BaseChild.table, id: operation.itemId).contains(base),
                        "round \(round): the base of \(operation.itemId) is no copy the server stored: \(base)")
                checked += 1
            }
            try await store.close()
        }
        #expect(checked > 0, "no kill left a pending update to check")
        let store = try await JournalDataSource(directory: directory.store)
        let context = SyncContext(dataSource: store, remote: HTTPRemote(baseURL: server.baseURL, apiVersion: apiVersion))
        _ = try await context.push()
        #expect(try await context.pendingOperations().isEmpty)
        try await store.close()
    }
}

/// The child's table, as the test names it.
private enum BaseChild {
    static let table = "Base"
}
