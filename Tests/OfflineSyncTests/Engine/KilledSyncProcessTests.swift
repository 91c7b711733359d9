import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// A device killed with SIGKILL at random moments while it writes, pushes and pulls over HTTP (a
/// `journal-crash-child` holding a journal store, against a back end in the test process that outlives it), restarted
/// on the same store each time. At every restart the store holds every acknowledged write; at the end one push and
/// one pull drain the queue with no error, and the store and the server hold each item as its last write left it,
/// with no deleted item back, and a `write` batch is found all or nothing. A variant adds 503s before and after the
/// server acts and tokens that expire. `OFFLINESYNC_SOAK=<rounds>` runs more rounds.
@Suite(.serialized)
struct KilledSyncProcessTests {
    static let rounds = ProcessInfo.processInfo.environment["OFFLINESYNC_SOAK"].flatMap { Int($0) }.map { max($0, 16) } ?? 16

    /// What the device's acknowledged writes left: an item's text, or deleted.
    enum State: Equatable, CustomStringConvertible {
        case text(String), deleted
        var description: String { if case .text(let text) = self { text } else { "deleted" } }
    }

    /// The writes the child acknowledged, and the ones a kill cut (a single write or a batch: they may or may not
    /// have happened, but a batch all or nothing).
    struct Ledger {
        var acknowledged: [String: State] = [:]
        var cut: [(id: String, result: State)] = []
        var batches = 0

        mutating func read(_ lines: [String]) {
            for line in lines {
                let words = line.split(separator: " ", maxSplits: 3).map(String.init)
                func write() -> (String, State) { (words[2], words[1] == "delete" ? .deleted : .text(words[3])) }
                switch words.first {
                case "begin" where words.count == 4: cut = [write()]
                case "begin-batch": cut = []
                case "part" where words.count == 4: cut.append(write())
                case "ack" where words.count == 4, "ack-batch":
                    for (id, result) in cut { acknowledged[id] = result }
                    if words.first == "ack-batch" { batches += 1 }
                    cut = []
                default: break
                }
            }
        }

        /// Decides from what the store holds whether the cut write or batch happened; false when only part of a
        /// batch did.
        mutating func settle(with held: [String: String]) -> Bool {
            defer { cut = [] }
            let happened = cut.filter { held[$0.id].map(State.text) ?? .deleted == $0.result }
            guard happened.count == cut.count || happened.isEmpty else { return false }
            for (id, result) in happened { acknowledged[id] = result }
            return true
        }

        /// The items the acknowledged writes leave: id → text.
        var expected: [String: String] {
            acknowledged.compactMapValues { if case .text(let text) = $0 { text } else { nil } }
        }
    }

    /// The store's files with their sizes, and the text of their lines (zero bytes left out), for a failure message.
    private static func files(in store: URL) -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: store.path).sorted()) ?? []
        return names.map { name in
            let bytes = (try? Data(contentsOf: store.appendingPathComponent(name))) ?? Data()
            return "\(name) (\(bytes.count) bytes): \(String(decoding: bytes.filter { $0 != 0 }, as: UTF8.self))"
        }.joined(separator: "\n")
    }

    /// id → text of the items `store` holds.
    private static func held(in store: JournalDataSource) async throws -> [String: String] {
        let items = try await store.read(Query(table: "Kill")).items
        return Dictionary(uniqueKeysWithValues: items.compactMap { item in
            item["id"]?.stringValue.map { ($0, item["text"]?.stringValue ?? "?") }
        })
    }

    @Test(arguments: [APIVersion.v2, .v3])
    func aDeleteAfterAPushKilledWhileTheServerHeldItsAnswerReachesTheServer(_ apiVersion: APIVersion) async throws {
        let server = try TableProtocolServer(version: apiVersion)
        defer { server.stop() }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        server.holdNextWriteAnswer()
        let child = try CrashChild(["push-insert", directory.storePath, server.baseURL.absoluteString,
                                    apiVersion == .v2 ? "v2" : "v3"])
        #expect(await child.readLines { $0.contains("pushing") }.contains("pushing"))
        #expect(await server.waitUntilHolding(), "the insert did not reach the server")
        await child.kill()
        server.releaseHeldAnswer()
        #expect(server.rows("Kill")["x"]?["deleted"] == false)
        let filesLeft = Self.files(in: directory.store)

        let store = try await JournalDataSource(directory: directory.store)
        let context = SyncContext(dataSource: store, remote: HTTPRemote(baseURL: server.baseURL, apiVersion: apiVersion))
        let attempted = try await context.pendingOperations().map(\.attempted)
        #expect(attempted == [true], "the insert the server received is not marked attempted; the child left \(filesLeft)")
        try await context.table("Kill").delete(["id": "x", "text": "A"])
        try await context.push()
        try await context.table("Kill").pull(queryId: "all")
        #expect(server.rows("Kill")["x"]?["deleted"] == true)
        #expect(try await context.table("Kill").read(id: "x") == nil)
        #expect(try await context.pendingOperations().isEmpty)
        try await store.close()
    }

    @Test(arguments: [APIVersion.v2, .v3], [1, 2, 3] as [UInt64])
    func aDeviceKilledWhileItSyncsLosesNothingAndNeverConflictsWithItself(_ apiVersion: APIVersion, _ seed: UInt64) async throws {
        try await Self.killRepeatedly(apiVersion, seed: seed, faults: nil)
    }

    /// The same under faults: 503s before the server acts, 503s after it acted (a write that happened but whose
    /// answer says it failed, so the retry meets its own row), and tokens that expire every 25 requests.
    @Test(arguments: [APIVersion.v2, .v3])
    func aDeviceKilledWhileItSyncsThroughFaultsAndExpiringTokensLosesNothing(_ apiVersion: APIVersion) async throws {
        let faults = ServerFaults(seed: 7, unavailableOneIn: 9, answerLostOneIn: 9, tokenLifetime: 25)
        try await Self.killRepeatedly(apiVersion, seed: 11, faults: faults)
    }

    /// Runs ``rounds`` children against one server (with `faults` until the last round), killing each at a random
    /// moment and checking the store after each; then, with faults off, one push and one pull must drain the queue
    /// and leave store and server equal to what the acknowledged writes left.
    private static func killRepeatedly(_ apiVersion: APIVersion, seed: UInt64, faults: ServerFaults?) async throws {
        let server = try TableProtocolServer(version: apiVersion, responseDelay: .milliseconds(2))
        defer { server.stop() }
        server.inject(faults)
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var generator = SplitMix64(seed: seed)
        var ledger = Ledger()
        var pushes = 0, pushesOK = 0
        for round in 0..<Self.rounds {
            var arguments = ["sync", directory.storePath, server.baseURL.absoluteString, apiVersion == .v2 ? "v2" : "v3",
                             "\(seed &* 1000 &+ UInt64(round))"]
            if faults != nil { arguments.append("faults") }
            let child = try CrashChild(arguments)
            let wanted = Int.random(in: 4...60, using: &generator)
            let firstLines = await child.readLines { $0.count >= wanted }
            // A little later, so that kills land anywhere in a request: before the server acted, or after it
            // acted and before the child recorded its answer.
            try await Task.sleep(for: .microseconds(Int.random(in: 0...6000, using: &generator)))
            await child.kill()
            let rest = await child.readLines { _ in false }
            let lines = firstLines + rest
            #expect(!lines.contains { $0.hasPrefix("error") }, "seed \(seed), round \(round): \(lines.filter { $0.hasPrefix("error") })")
            pushes += lines.filter { $0.hasPrefix("push") }.count
            pushesOK += lines.filter { $0 == "push ok" }.count
            ledger.read(lines)

            let store = try await JournalDataSource(directory: directory.store)
            let held = try await Self.held(in: store)
            let whole = ledger.settle(with: held)
            #expect(whole, "seed \(seed), round \(round): the store holds half a batch")
            #expect(held == ledger.expected, "seed \(seed), round \(round): the store lost an acknowledged write")
            try await store.close()
        }
        #expect(pushes > Self.rounds && pushesOK > 0, "seed \(seed): the children pushed \(pushes) times, \(pushesOK) with success")
        #expect(ledger.batches > 0, "seed \(seed): no batch was acknowledged")
        #expect(server.maximumRequestsAtOnce > 1, "seed \(seed): the children never had several requests in flight")
        if faults != nil, let injected = server.injectedFaults {
            #expect(injected.unavailable > 0 && injected.lostAnswers > 0 && injected.unauthorized > 0,
                    "seed \(seed): faults not all met: \(injected.unavailable) 503s, \(injected.lostAnswers) lost answers, \(injected.unauthorized) 401s")
        }
        server.inject(nil)

        let store = try await JournalDataSource(directory: directory.store)
        let context = SyncContext(dataSource: store, remote: HTTPRemote(baseURL: server.baseURL, apiVersion: apiVersion))
        do {
            try await context.push()
        } catch let error as PushError {
            Issue.record("seed \(seed): the last push failed: \(error.errors.map(\.description))")
        }
        try await context.table("Kill").pull(queryId: "all")
        #expect(try await context.pendingOperations().isEmpty, "seed \(seed)")
        #expect(try await context.operationErrors().isEmpty, "seed \(seed)")
        let local = try await Self.held(in: store)
        #expect(local == ledger.expected, "seed \(seed): the store differs from the last acknowledged writes")
        let onServer = server.rows("Kill").values.filter { $0["deleted"] != true }
        let serverTexts = Dictionary(uniqueKeysWithValues: onServer.compactMap { row in
            row["id"]?.stringValue.map { ($0, row["text"]?.stringValue ?? "?") }
        })
        #expect(serverTexts == local, "seed \(seed): the server differs from the store")
        try await store.close()
    }
}
