import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// A device killed with SIGKILL at random moments while it adds photos, pushes the items naming them over HTTP and
/// downloads the photos of pulled items (a `journal-crash-child attachments`), the file endpoint answering slowly so
/// that kills land mid-transfer; restarted on the same directory each time. After every kill: no item on the server
/// names a file the file endpoint lacks, the queue's `.partial` folder is emptied at start, every file in the queue's
/// directory is whole, and every photo an acknowledged insert names is still on the device or on the server. At the
/// end one push and one sync converge: every item's photo is on the server and on the device, and the endpoint holds
/// no file under an id that neither an item nor the device knows.
@Suite(.serialized)
struct KilledAttachmentProcessTests {
    /// Kills per dialect; `OFFLINESYNC_SOAK=<kills>` runs more.
    static let rounds = ProcessInfo.processInfo.environment["OFFLINESYNC_SOAK"].flatMap { Int($0) }.map { max($0, 8) } ?? 8
    static let table = "Photo"
    static let photoSize = 48 << 10

    /// Whether `bytes` is a whole photo of the child: `photoSize` bytes, all equal.
    static func isWholePhoto(_ bytes: [UInt8]) -> Bool {
        bytes.count == photoSize && bytes.allSatisfy { $0 == bytes[0] }
    }

    @Test(arguments: [APIVersion.v2, .v3])
    func aDeviceKilledMidTransferLosesNoPhotoAndSendsNoReferenceAhead(_ apiVersion: APIVersion) async throws {
        let tables = try TableProtocolServer(version: apiVersion, responseDelay: .milliseconds(2))
        defer { tables.stop() }
        let files = try BlobServer()
        defer { files.stop() }
        files.delayAnswers(by: .milliseconds(15))
        // Another device's photos, which the child pulls and downloads.
        for number in 0..<6 {
            files.put("other-\(number)", [UInt8](repeating: UInt8(200 + number), count: Self.photoSize))
        }
        tables.seed((0..<6).map { ["id": .string("o\($0)"), "photo": .string("other-\($0)")] }, table: Self.table)
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let filesURL = files.url(of: "x").deletingLastPathComponent()
        var generator = SplitMix64(seed: apiVersion == .v2 ? 21 : 22)
        var acknowledged: [String: String] = [:]   // item → photo
        for round in 0..<Self.rounds {
            let child = try CrashChild(["attachments", directory.path, tables.baseURL.absoluteString, filesURL.absoluteString,
                                        apiVersion == .v2 ? "v2" : "v3", "\(round)"])
            let wanted = Int.random(in: 4...24, using: &generator)
            var lines = await child.readLines { $0.count >= wanted }
            try await Task.sleep(for: .microseconds(Int.random(in: 0...20_000, using: &generator)))
            await child.kill()
            lines += await child.readLines { _ in false }
            #expect(!lines.contains { $0.hasPrefix("error") }, "round \(round): \(lines.filter { $0.hasPrefix("error") })")
            for line in lines where line.hasPrefix("ack insert ") {
                let parts = line.split(separator: " ")
                if parts.count == 4 { acknowledged[String(parts[2])] = String(parts[3]) }
            }
            try await check(round: round, tables: tables, files: files, directory: directory, apiVersion: apiVersion,
                            acknowledged: acknowledged)
        }
        #expect(acknowledged.count >= Self.rounds, "the child acknowledged too few inserts to test anything")

        // Converge: one push and one sync without kills.
        let (store, context, queue) = try await Self.open(directory, tables: tables, files: files, apiVersion: apiVersion)
        try await context.push()
        try await context.table(Self.table).pull(queryId: "all")
        try await queue.sync()
        let rows = tables.rows(Self.table)
        for (item, photo) in acknowledged {
            #expect(rows[item]?["photo"]?.stringValue == photo, "\(item) did not reach the server")
        }
        var known: Set<String> = []
        for row in rows.values {
            guard let photo = row["photo"]?.stringValue else { continue }
            known.insert(photo)
            #expect(files.stored[photo].map(Self.isWholePhoto) == true, "the server's \(row["id"] ?? .null) names \(photo), not on the endpoint")
            #expect(try await queue.state(of: photo) == .local, "\(photo) is not on the device after the sync")
        }
        let records = try await AttachmentRecord.all(in: store)
        for id in files.stored.keys {
            #expect(known.contains(id) || records[id] != nil, "the endpoint holds \(id), which no item and no record names")
        }
        #expect(await queue.statusUpdates().first { _ in true }?.pendingUploads == 0)
        try await store.close()
    }

    private func check(round: Int, tables: TableProtocolServer, files: BlobServer, directory: TemporaryDirectory,
                       apiVersion: APIVersion, acknowledged: [String: String]) async throws {
        // No reference ahead of its file.
        for row in tables.rows(Self.table).values {
            guard let photo = row["photo"]?.stringValue else { continue }
            #expect(files.stored[photo].map(Self.isWholePhoto) == true,
                    "round \(round): the server has \(row["id"] ?? .null) naming \(photo) before the file")
        }
        let (store, _, queue) = try await Self.open(directory, tables: tables, files: files, apiVersion: apiVersion)
        let folder = directory.url.appendingPathComponent("files")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(".partial").path).isEmpty,
                "round \(round): a partial file survived the start")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name != ".partial" {
            let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(name)))
            #expect(Self.isWholePhoto(bytes), "round \(round): \(name) is torn (\(bytes.count) bytes)")
        }
        for (item, photo) in acknowledged {
            let state = try await queue.state(of: photo)
            let onServer = files.stored[photo] != nil
            #expect(state != .missing && (state != .pendingDownload || onServer),
                    "round \(round): the photo \(photo) of \(item) is lost (\(state))")
        }
        try await store.close()
    }

    static func open(_ directory: TemporaryDirectory, tables: TableProtocolServer, files: BlobServer,
                     apiVersion: APIVersion) async throws -> (JournalDataSource, SyncContext, AttachmentQueue) {
        let store = try await JournalDataSource(directory: directory.url.appendingPathComponent("store"))
        let context = SyncContext(dataSource: store, remote: HTTPRemote(baseURL: tables.baseURL, apiVersion: apiVersion))
        let queue = try await AttachmentQueue(
            context: context, directory: directory.url.appendingPathComponent("files"),
            fields: [AttachmentField(table: table, field: "photo")],
            transport: HTTPAttachmentTransport(url: { id in files.url(of: id) }),
            settings: AttachmentSettings(downloadsAfterPull: false))
        return (store, context, queue)
    }
}
