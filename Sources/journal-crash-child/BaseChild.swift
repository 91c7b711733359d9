import Foundation
import OfflineSync

/// `journal-crash-child bases <directory> <baseURL> <v2|v3> <seed>`: a device killed while it edits items it pulled.
///
/// Opens the store (`.always`), pulls table "Base" (items the server holds), then loops: an update of one of its items
/// (a new text), printed `ack update <id>` once it returned, and after every third update a push with eight in flight
/// (`push ok|failed`), now and then a pull. Every pending update keeps its base; the test checks, after each kill, that
/// each base is a copy the server stored. It never ends by itself.
enum BaseChild {
    static let table = "Base"

    static func run(directory: URL, baseURL: URL, apiVersion: APIVersion, seed: UInt64) async throws -> Never {
        let store = try await JournalDataSource(directory: directory, options: JournalOptions(durability: .always))
        let remote = HTTPRemote(baseURL: baseURL, apiVersion: apiVersion, configuration: HTTPRemoteConfiguration(timeout: .seconds(10)))
        let context = SyncContext(dataSource: store, remote: remote)
        let items = context.table(table)
        try await items.pull(queryId: "all")
        output("pull ok")
        var state = seed ^ UInt64(getpid())
        var counter = 0
        while true {
            counter += 1
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let held = try await items.read(Query(table: table, orderBy: [.ascending("id")])).items
            guard !held.isEmpty else { throw ChildFailure("the store holds no item of \(table)") }
            var item = held[Int((state >> 33) % UInt64(held.count))]
            item["text"] = .string("p\(getpid())-\(counter)")
            try await items.update(item)
            output("ack update \(item["id"]?.stringValue ?? "?")")
            if counter % 3 == 0 {
                do { try await context.push(settings: PushSettings(maximumConcurrentRequests: 8)); output("push ok") }
                catch { output("push failed \(error)") }
            }
            if counter % 10 == 0 {
                do { try await items.pull(queryId: "all"); output("pull ok") } catch { output("pull failed \(error)") }
            }
        }
    }
}

/// A child's own failure, printed as `error <message>`.
struct ChildFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
