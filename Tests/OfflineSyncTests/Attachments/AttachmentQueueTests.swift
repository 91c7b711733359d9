import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// A remote that notes, for every insert or update it receives, whether the transport already held the file its
/// `photo` field names: a reference must never reach the server before its file.
actor ReferenceCheckingRemote: SyncRemote {
    let server: InMemoryRemote
    /// Whether the file store holds a file, by id.
    let holds: @Sendable (String) async -> Bool
    private(set) var referencesBeforeFiles: [String] = []
    private(set) var referencesSent = 0

    init(server: InMemoryRemote, transport: InMemoryAttachmentTransport) {
        self.init(server: server) { id in await transport.files[id] != nil }
    }

    init(server: InMemoryRemote, holds: @escaping @Sendable (String) async -> Bool) {
        self.server = server
        self.holds = holds
    }

    private func check(_ item: JSONObject) async {
        guard case .string(let id)? = item["photo"] else { return }
        referencesSent += 1
        if await !holds(id) { referencesBeforeFiles.append(id) }
    }

    func insert(_ item: JSONObject, table: String) async throws -> JSONObject {
        await check(item)
        return try await server.insert(item, table: table)
    }

    func update(_ item: JSONObject, table: String) async throws -> JSONObject {
        await check(item)
        return try await server.update(item, table: table)
    }

    func delete(id: String, version: String?, table: String) async throws {
        try await server.delete(id: id, version: version, table: table)
    }

    func read(_ query: Query) async throws -> RemotePage {
        try await server.read(query)
    }
}

/// One device: a store, a context and its attachment queue, in directories of their own.
struct AttachmentDevice {
    static let fields = [AttachmentField(table: "Inspection", field: "photo")]

    let folder: TemporaryDirectory
    let context: SyncContext
    let queue: AttachmentQueue
    var table: SyncTable { context.table("Inspection") }

    init(remote: any SyncRemote, transport: any AttachmentTransport, folder: TemporaryDirectory = TemporaryDirectory(),
         dataSource: (any SyncContextDataSource)? = nil, settings: AttachmentSettings = AttachmentSettings()) async throws {
        self.folder = folder
        context = SyncContext(dataSource: dataSource ?? InMemoryDataSource(), remote: remote)
        queue = try await AttachmentQueue(context: context, directory: folder.url.appendingPathComponent("files"),
                                          fields: Self.fields, transport: transport, settings: settings)
    }

    var filesFolder: URL { folder.url.appendingPathComponent("files") }
}

struct AttachmentQueueTests {
    static let photo = Data((0..<4_096).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    @Test func anAttachmentAddedOfflineIsUploadedBeforeTheItemThatNamesIt() async throws {
        let transport = InMemoryAttachmentTransport()
        let remote = ReferenceCheckingRemote(server: InMemoryRemote(), transport: transport)
        let device = try await AttachmentDevice(remote: remote, transport: transport)
        defer { device.folder.remove() }
        var ids: [String] = []
        for number in 0..<5 {
            let id = try await device.queue.add(Self.photo)
            ids.append(id)
            try await device.table.insert(["id": .string("i\(number)"), "photo": .string(id)])
            #expect(try await device.queue.state(of: id) == .pendingUpload)
        }
        #expect(await transport.requests.isEmpty, "nothing is sent before a push")
        try await device.context.push(settings: PushSettings(maximumConcurrentRequests: 4))
        #expect(await remote.referencesSent == 5)
        #expect(await remote.referencesBeforeFiles.isEmpty)
        for id in ids {
            #expect(await transport.files[id] == Self.photo)
            #expect(try await device.queue.state(of: id) == .local)
        }
    }

    @Test func aFailedUploadHoldsItsOperationWithAnErrorAndThePushGoesOn() async throws {
        let transport = InMemoryAttachmentTransport()
        let server = InMemoryRemote()
        let device = try await AttachmentDevice(remote: server, transport: transport)
        defer { device.folder.remove() }
        let failing = try await device.queue.add(Self.photo)
        let fine = try await device.queue.add(Self.photo)
        await transport.setFailing([failing])
        try await device.table.insert(["id": "held", "photo": .string(failing)])
        try await device.table.insert(["id": "sent", "photo": .string(fine)])
        let error = await #expect(throws: PushError.self) { try await device.context.push() }
        #expect(error?.errors.map(\.operation.itemId) == ["held"])
        #expect(await server.items(table: "Inspection").compactMap { $0["id"]?.stringValue } == ["sent"])
        guard case .failed = try await device.queue.state(of: failing) else {
            Issue.record("the failed upload is not reported")
            return
        }
        #expect(await device.queue.statusUpdates().first(where: { _ in true })?.failed == 1)
        await transport.setFailing([])
        try await device.context.push()
        #expect(await server.items(table: "Inspection").count == 2)
        #expect(try await device.queue.state(of: failing) == .local)
    }

    @Test(arguments: [true, false])
    func pulledItemsHaveTheirFilesDownloadedAfterThePullOrOnDemand(afterPull: Bool) async throws {
        let transport = InMemoryAttachmentTransport(files: ["p1": Self.photo])
        let server = InMemoryRemote()
        await server.seed([["id": "i1", "photo": "p1"]], table: "Inspection")
        let settings = AttachmentSettings(downloadsAfterPull: afterPull)
        let device = try await AttachmentDevice(remote: server, transport: transport, settings: settings)
        defer { device.folder.remove() }
        try await device.table.pull()
        if afterPull {
            #expect(try await eventually { try await device.queue.state(of: "p1") == .local })
        } else {
            #expect(try await device.queue.state(of: "p1") == .pendingDownload)
            #expect(await transport.requests.isEmpty)
        }
        let file = try #require(try await device.queue.file(for: "p1"))
        #expect(try Data(contentsOf: file) == Self.photo)
        #expect(await transport.requests == [.download("p1")], "one download, whichever way")
    }

    @Test func anAttachmentNeitherSideHasIsMissing() async throws {
        let device = try await AttachmentDevice(remote: InMemoryRemote(), transport: InMemoryAttachmentTransport())
        defer { device.folder.remove() }
        #expect(try await device.queue.file(for: "nowhere") == nil)
        #expect(try await device.queue.state(of: "nowhere") == .missing)
    }

    @Test func idsThatCannotNameAFileAreRefused() async throws {
        let device = try await AttachmentDevice(remote: InMemoryRemote(), transport: InMemoryAttachmentTransport())
        defer { device.folder.remove() }
        for id in ["../secret", ".partial", "", "a/b", String(repeating: "x", count: 129)] {
            await #expect(throws: AttachmentError.invalidID(id)) { try await device.queue.file(for: id) }
        }
    }

    @Test func evictionRemovesUploadedFilesLeastRecentlyUsedFirstButNeverPinnedOnes() async throws {
        let transport = InMemoryAttachmentTransport()
        let device = try await AttachmentDevice(remote: InMemoryRemote(), transport: transport,
                                                settings: AttachmentSettings(cacheLimitBytes: 13_000))
        defer { device.folder.remove() }
        // Four uploaded files of 4 KiB, and one more not uploaded: the limit keeps three of the five.
        var uploaded: [String] = []
        for _ in 0..<4 { uploaded.append(try await device.queue.add(Self.photo)) }
        try await device.queue.sync()
        // The oldest is named by an item with a pending operation; one more is added and not uploaded.
        try await device.table.insert(["id": "pending", "photo": .string(uploaded[0])])
        let notUploaded = try await device.queue.add(Self.photo)
        await transport.setFailing([notUploaded])
        _ = try await device.queue.file(for: uploaded[1])   // used: now the most recent uploaded one
        try await device.queue.sync()
        #expect(try await device.queue.state(of: uploaded[0]) == .local, "pinned by a pending operation")
        guard case .failed = try await device.queue.state(of: notUploaded) else {
            Issue.record("the file not uploaded is no longer on the device")
            return
        }
        #expect(FileManager.default.fileExists(atPath: device.filesFolder.appendingPathComponent(notUploaded).path))
        #expect(try await device.queue.state(of: uploaded[2]) == .pendingDownload, "least recently used: evicted")
        #expect(try await device.queue.state(of: uploaded[3]) == .pendingDownload)
        #expect(try await device.queue.state(of: uploaded[1]) == .local)
        let evictedAgain = try #require(try await device.queue.file(for: uploaded[2]))
        #expect(try Data(contentsOf: evictedAgain) == Self.photo, "an evicted file is downloaded again")
    }

    @Test func eraseRemovesEveryFileAndRecord() async throws {
        let transport = InMemoryAttachmentTransport()
        let device = try await AttachmentDevice(remote: InMemoryRemote(), transport: transport)
        defer { device.folder.remove() }
        let id = try await device.queue.add(Self.photo)
        try await device.table.insert(["id": "i1", "photo": .string(id)])
        try await device.context.erase()
        let left = try FileManager.default.contentsOfDirectory(atPath: device.filesFolder.path).filter { $0 != ".partial" }
        #expect(left.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: device.filesFolder.appendingPathComponent(".partial").path).isEmpty)
        #expect(try await device.context.dataSource.read(Query(table: EngineTables.attachments)).items.isEmpty)
        #expect(try await device.queue.state(of: id) == .pendingDownload)
    }

    @Test func aRestartDiscardsPartialFilesAndForgetsAddsThatNeverReturned() async throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let transport = InMemoryAttachmentTransport()
        let store = try await JournalDataSource(directory: folder.url.appendingPathComponent("store"))
        let device = try await AttachmentDevice(remote: InMemoryRemote(), transport: transport, folder: folder, dataSource: store)
        let kept = try await device.queue.add(Self.photo)
        // What a kill can leave: a half-written download, the record of an add whose file never got its name, and a
        // downloaded file whose record was not written.
        let partial = device.filesFolder.appendingPathComponent(".partial/half")
        try Data([1, 2, 3]).write(to: partial)
        try await store.apply([AttachmentRecord.saving([AttachmentRecord(id: "unnamed", uploaded: false, bytes: 9, used: 1)])])
        try Self.photo.write(to: device.filesFolder.appendingPathComponent("downloaded"))
        try await store.close()

        let reopened = try await JournalDataSource(directory: folder.url.appendingPathComponent("store"))
        let restarted = try await AttachmentDevice(remote: InMemoryRemote(), transport: transport, folder: folder, dataSource: reopened)
        #expect(!FileManager.default.fileExists(atPath: partial.path))
        #expect(try await restarted.queue.state(of: kept) == .pendingUpload)
        #expect(try await restarted.queue.state(of: "downloaded") == .local)
        let records = try await AttachmentRecord.all(in: reopened)
        #expect(records["unnamed"] == nil && records["downloaded"]?.uploaded == true)
        try await reopened.close()
    }

    @Test func anUploadThatFailedIsSentAgainAfterARestart() async throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let transport = InMemoryAttachmentTransport()
        let server = InMemoryRemote()
        let store = try await JournalDataSource(directory: folder.url.appendingPathComponent("store"))
        let device = try await AttachmentDevice(remote: server, transport: transport, folder: folder, dataSource: store)
        let id = try await device.queue.add(Self.photo)
        try await device.table.insert(["id": "i1", "photo": .string(id)])
        await transport.setFailing([id])
        await #expect(throws: PushError.self) { try await device.context.push() }
        try await store.close()

        await transport.setFailing([])
        let reopened = try await JournalDataSource(directory: folder.url.appendingPathComponent("store"))
        let restarted = try await AttachmentDevice(remote: server, transport: transport, folder: folder, dataSource: reopened)
        guard case .failed = try await restarted.queue.state(of: id) else {
            Issue.record("the failure is not kept across the restart")
            return
        }
        try await restarted.context.push()
        #expect(await transport.files[id] == Self.photo)
        #expect(await server.items(table: "Inspection").count == 1)
        #expect(await transport.requests.filter { $0 == .upload(id) }.count == 2, "the failed upload, then one more")
        try await reopened.close()
    }

    @Test func twoDevicesShareAttachmentsThroughTheServer() async throws {
        let transport = InMemoryAttachmentTransport()
        let server = InMemoryRemote()
        let first = try await AttachmentDevice(remote: server, transport: transport)
        let second = try await AttachmentDevice(remote: server, transport: transport)
        defer {
            first.folder.remove()
            second.folder.remove()
        }
        let id = try await first.queue.add(Self.photo)
        try await first.table.insert(["id": "i1", "photo": .string(id)])
        try await first.context.push()
        try await second.table.pull()
        try await second.queue.sync()
        let file = try #require(try await second.queue.file(for: id))
        #expect(try Data(contentsOf: file) == Self.photo)
        // The second device replaces the photo; the first sees the new one after a pull.
        let replacement = try await second.queue.add(Data("new".utf8))
        try await second.table.update(["id": "i1", "photo": .string(replacement)])
        try await second.context.push()
        try await first.table.pull()
        try await first.queue.sync()
        let replaced = try #require(try await first.queue.file(for: replacement))
        #expect(try Data(contentsOf: replaced) == Data("new".utf8))
    }

    @Test func theStatusCountsPendingUploadsUntilTheyAreSent() async throws {
        let transport = InMemoryAttachmentTransport()
        let device = try await AttachmentDevice(remote: InMemoryRemote(), transport: transport)
        defer { device.folder.remove() }
        _ = try await device.queue.add(Self.photo)
        _ = try await device.queue.add(Self.photo)
        var updates = await device.queue.statusUpdates().makeAsyncIterator()
        #expect(await updates.next()?.pendingUploads == 2)
        try await device.queue.sync()
        var last = AttachmentStatus(pendingUploads: -1)
        while last.pendingUploads != 0 || last.bytesInFlight != 0 { last = try #require(await updates.next()) }
        #expect(last.failed == 0)
    }
}
