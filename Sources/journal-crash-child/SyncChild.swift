import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OfflineSync

/// `journal-crash-child sync <directory> <baseURL> <v2|v3> <seed> [faults]`: a device that is killed while it syncs.
///
/// Opens the store (`.always`), then loops: one random local write to table "Kill" (an insert of a new id, or an
/// update or delete of an item it holds), printing `begin <kind> <id> <text>` before the write and
/// `ack <kind> <id> <text>` once it returned (`<text>` is `-` for a delete), or now and then a `write` batch of an
/// update and an insert, printed as `begin-batch`, one `part <kind> <id> <text>` per write, and `ack-batch`; then,
/// most of the time, a push and now and then an incremental pull of the table, printing `push ok|failed` and
/// `pull ok|failed`. Every text is unique, so the test can tell which write an item holds. With `faults` the server
/// injects failures: the remote retries quickly, and its tokens come from the server's `GET /token` (refreshed
/// after a 401). It never ends by itself.
enum SyncChild {
    static let table = "Kill"

    static func run(directory: URL, baseURL: URL, apiVersion: APIVersion, seed: UInt64, faults: Bool) async throws -> Never {
        let store = try await JournalDataSource(directory: directory, options: JournalOptions(durability: .always))
        let remote: HTTPRemote
        if faults {
            let retries = HTTPRetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(4), maximumDelay: .milliseconds(50))
            remote = HTTPRemote(baseURL: baseURL, apiVersion: apiVersion, authentication: ServerTokens(baseURL: baseURL),
                                configuration: HTTPRemoteConfiguration(timeout: .seconds(10), retryPolicy: retries))
        } else {
            remote = HTTPRemote(baseURL: baseURL, apiVersion: apiVersion,
                                configuration: HTTPRemoteConfiguration(timeout: .seconds(10)))
        }
        let context = SyncContext(dataSource: store, remote: remote)
        let items = context.table(table)
        var random = ChildRandom(seed: seed ^ UInt64(getpid()))
        let prefix = "p\(getpid())"
        var counter = 0
        while true {
            counter += 1
            let text = "\(prefix)-\(counter)"
            let held = try await items.read(Query(table: table, orderBy: [.ascending("id")])).items
            let roll = random.next() % 10
            if held.isEmpty || roll < 3 {
                let id = "\(prefix)-i\(counter)"
                output("begin insert \(id) \(text)")
                try await items.insert(["id": .string(id), "text": .string(text)])
                output("ack insert \(id) \(text)")
            } else {
                var item = held[Int(random.next() % UInt64(held.count))]
                let id = item["id"]?.stringValue ?? "?"
                item["text"] = .string(text)
                switch roll {
                case 3..<7:
                    output("begin update \(id) \(text)")
                    try await items.update(item)
                    output("ack update \(id) \(text)")
                case 7:
                    output("begin delete \(id) -")
                    try await items.delete(item)
                    output("ack delete \(id) -")
                default:
                    let newID = "\(prefix)-i\(counter)", newText = text + "b"
                    output("begin-batch")
                    output("part update \(id) \(text)")
                    output("part insert \(newID) \(newText)")
                    try await context.write { writes in
                        try writes.update(item, in: table)
                        try writes.insert(["id": .string(newID), "text": .string(newText)], into: table)
                    }
                    output("ack-batch")
                }
            }
            if random.next() % 3 != 0 {
                do { try await context.push(settings: Self.inFlight); output("push ok") } catch { output("push failed \(error)") }
            }
            if random.next() % 6 == 0 {
                do { try await items.pull(queryId: "all", settings: Self.pullInFlight); output("pull ok") } catch { output("pull failed \(error)") }
            }
        }
    }
}

extension SyncChild {
    /// The soak pushes with eight operations in flight, the most a push is tested with.
    static let inFlight = PushSettings(maximumConcurrentRequests: 8)

    /// The soak's pulls fetch eight pages at once.
    static var pullInFlight: PullSettings {
        var settings = PullSettings()
        settings.maximumConcurrentRequests = 8
        return settings
    }
}

/// Tokens from the test server's sign-in service (`GET <baseURL>/token`), fetched again when `refresh` is asked.
actor ServerTokens: AuthenticationProvider {
    private let url: URL
    private var current: String?

    init(baseURL: URL) { url = baseURL.appendingPathComponent("token") }

    func token(refresh: Bool) async throws -> String {
        if !refresh, let current { return current }
        let url = url
        let body: Data = try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.dataTask(with: url) { data, _, error in
                if let data { continuation.resume(returning: data) } else { continuation.resume(throwing: error ?? URLError(.badServerResponse)) }
            }.resume()
        }
        guard case .object(let object) = try JSONValue(parsing: [UInt8](body)), let token = object["token"]?.stringValue else {
            throw URLError(.cannotParseResponse)
        }
        current = token
        return token
    }
}

extension SyncChild {
    /// `journal-crash-child push-insert <directory> <baseURL> <v2|v3>`: inserts item "x" (text "A") into table
    /// "Kill", prints `ack insert`, then `pushing`, and pushes; the test kills it while the server holds the answer.
    static func pushInsert(directory: URL, baseURL: URL, apiVersion: APIVersion) async throws {
        let store = try await JournalDataSource(directory: directory, options: JournalOptions(durability: .always))
        // A request that timed out would be sent again, and that second answer is not held: on a loaded machine the
        // kill may come a minute late, so the request waits as long as the server holds it.
        let remote = HTTPRemote(baseURL: baseURL, apiVersion: apiVersion, configuration: HTTPRemoteConfiguration(timeout: .seconds(3_600)))
        let context = SyncContext(dataSource: store, remote: remote)
        try await context.table(table).insert(["id": "x", "text": "A"])
        output("ack insert")
        output("pushing")
        try await context.push()
        output("pushed")
    }
}

extension SyncChild {
    /// `journal-crash-child batch <directory>`: forever, write batch n (`SyncContext.write`): insert "b<n>" into
    /// tables "A" and "B", and set item "last" of table "C" to n; print `ack <n>` once it returned. Starts after the
    /// last batch the store holds.
    static func writeBatches(directory: URL) async throws -> Never {
        let store = try await JournalDataSource(directory: directory, options: JournalOptions(durability: .always))
        let context = SyncContext(dataSource: store, remote: HTTPRemote(baseURL: URL(fileURLWithPath: "/")))
        var batch = try await context.table("C").read(id: "last")?["n"]?.intValue ?? 0
        while true {
            batch += 1
            let n = batch
            try await context.write { writes in
                try writes.insert(["id": .string("b\(n)"), "n": .int(n)], into: "A")
                try writes.insert(["id": .string("b\(n)"), "n": .int(n)], into: "B")
                try writes.update(["id": "last", "n": .int(n)], in: "C")
            }
            output("ack \(n)")
        }
    }
}

/// SplitMix64: the child's own seeded choices.
struct ChildRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
