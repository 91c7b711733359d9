import Foundation
import OfflineSync

/// A remote that prints each call and how it ended, for `demo --verbose` against the in-process back end (an
/// `HTTPRemote` prints its requests through its request hook instead).
struct CallLoggingRemote: SyncRemote {
    let backEnd: any SyncRemote

    private func logged<T: Sendable>(_ call: String, _ body: () async throws -> T) async throws -> T {
        let clock = ContinuousClock(), start = clock.now
        do {
            let value = try await body()
            DemoLog.call("\(call) → ok in \(DemoLog.milliseconds(start.duration(to: clock.now))) ms")
            return value
        } catch {
            DemoLog.call("\(call) → \(error) in \(DemoLog.milliseconds(start.duration(to: clock.now))) ms")
            throw error
        }
    }

    func insert(_ item: JSONObject, table: String) async throws -> JSONObject {
        try await logged("insert \(table)/\(item["id"]?.stringValue ?? "?")") { try await backEnd.insert(item, table: table) }
    }

    func update(_ item: JSONObject, table: String) async throws -> JSONObject {
        try await logged("update \(table)/\(item["id"]?.stringValue ?? "?")") { try await backEnd.update(item, table: table) }
    }

    func delete(id: String, version: String?, table: String) async throws {
        try await logged("delete \(table)/\(id)") { try await backEnd.delete(id: id, version: version, table: table) }
    }

    func read(_ query: Query) async throws -> RemotePage {
        try await logged("read \(query.table)") { try await backEnd.read(query) }
    }
}

/// The lines `demo --verbose` prints for each call to the back end.
enum DemoLog {
    static func call(_ line: String) {
        Terminal.out("      [remote] " + line)
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int((Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15).rounded())
    }
}
