import Foundation
import OfflineSync

/// `journal-crash-child attachments <directory> <tablesURL> <filesURL> <v2|v3> <seed>`: a device killed while it adds
/// photos, pushes the items naming them, and downloads the photos of items it pulls.
///
/// Opens the store (`.always`) in `<directory>/store` and an attachment queue in `<directory>/files` watching field
/// `photo` of table "Photo", whose files go to `<filesURL>/<id>`. Loops: adds a photo (`ack add <id>` once it returned),
/// inserts an item naming it (`ack insert <item> <id>`), and every third step pushes with eight in flight
/// (`push ok|failed`) and pulls, which downloads in the background the photos other devices' items name; every fifth
/// step runs the queue's `sync()` (`sync ok|failed`). Every photo is ``photoSize`` bytes, each of them the step's
/// number modulo 251, so a torn file shows. It never ends by itself.
enum AttachmentChild {
    static let table = "Photo"
    static let photoSize = 48 << 10

    /// The bytes of photo number `number`.
    static func photo(_ number: Int) -> Data { Data(repeating: UInt8(number % 251), count: photoSize) }

    static func run(directory: URL, tablesURL: URL, filesURL: URL, apiVersion: APIVersion, seed: UInt64) async throws -> Never {
        let store = try await JournalDataSource(directory: directory.appendingPathComponent("store"),
                                                options: JournalOptions(durability: .always))
        let configuration = HTTPRemoteConfiguration(timeout: .seconds(10))
        let context = SyncContext(dataSource: store, remote: HTTPRemote(baseURL: tablesURL, apiVersion: apiVersion,
                                                                         configuration: configuration))
        let transport = HTTPAttachmentTransport(url: { id in filesURL.appendingPathComponent(id) }, configuration: configuration)
        let queue = try await AttachmentQueue(context: context, directory: directory.appendingPathComponent("files"),
                                              fields: [AttachmentField(table: table, field: "photo")], transport: transport)
        let photos = context.table(table)
        var number = Int(seed % 1_000) * 1_000 + Int(getpid() % 997)
        var step = 0
        while true {
            step += 1
            number += 1
            let id = try await queue.add(photo(number))
            output("ack add \(id)")
            let item = "p\(getpid())-\(step)"
            try await photos.insert(["id": .string(item), "photo": .string(id)])
            output("ack insert \(item) \(id)")
            if step % 3 == 0 {
                do { try await context.push(settings: PushSettings(maximumConcurrentRequests: 8)); output("push ok") }
                catch { output("push failed \(error)") }
                do { try await photos.pull(queryId: "all"); output("pull ok") } catch { output("pull failed \(error)") }
            }
            if step % 5 == 0 {
                do { try await queue.sync(); output("sync ok") } catch { output("sync failed \(error)") }
            }
        }
    }
}
