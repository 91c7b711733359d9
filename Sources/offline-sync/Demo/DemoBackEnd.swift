import Foundation
import OfflineSync
import OfflineSyncTesting

/// The back end the demo talks to: the in-process simulator, or a real server given with `--url`.
struct DemoBackEnd: Sendable {
    /// The remote the devices use.
    let remote: any SyncRemote
    /// A short description for the output.
    let description: String

    /// The in-process back end from `OfflineSyncTesting`; `verbose` prints each call.
    static func simulator(verbose: Bool = false) -> DemoBackEnd {
        let clock = TickingClock(start: Date())
        let remote = InMemoryRemote(pageSize: 50, clock: { clock.next() })
        return DemoBackEnd(remote: verbose ? CallLoggingRemote(backEnd: remote) : remote,
                           description: "the in-process back end (InMemoryRemote)")
    }

    /// A real Azure Mobile Apps (v2) or Datasync (v3) server; `verbose` prints each HTTP request.
    static func server(url: URL, apiVersion: APIVersion, token: String?, verbose: Bool = false) -> DemoBackEnd {
        let hook = verbose ? HTTPRequestHook { DemoLog.call("\($0)") } : nil
        let remote = HTTPRemote(baseURL: url, apiVersion: apiVersion, authToken: token,
                                configuration: HTTPRemoteConfiguration(requestHook: hook))
        return DemoBackEnd(remote: remote,
                           description: "\(url.absoluteString) (\(apiVersion == .v2 ? "ZUMO-API-VERSION 2.0.0" : "Datasync 3.0.0"))")
    }

    /// The back end's copies of the items with these ids, read straight from the server.
    func items(ids: [String], table: String) async throws -> [JSONObject] {
        var found: [JSONObject] = []
        for chunk in stride(from: 0, to: ids.count, by: 20).map({ Array(ids[$0..<min($0 + 20, ids.count)]) }) {
            guard let first = chunk.first else { continue }
            let filter = chunk.dropFirst().reduce(Field("id") == .string(first)) { $0 || Field("id") == .string($1) }
            found += try await remote.read(Query(table: table, filter: filter, top: 50)).items
        }
        return found
    }
}

/// A server clock that moves one millisecond per reading, so every write gets its own `updatedAt`, as on a real
/// server where requests are milliseconds apart.
final class TickingClock: @unchecked Sendable {
    private let lock = NSLock()
    private var milliseconds: Int64

    init(start: Date) {
        milliseconds = Timestamp.milliseconds(of: start)
    }

    func next() -> Date {
        lock.lock()
        defer { lock.unlock() }
        milliseconds += 1
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
