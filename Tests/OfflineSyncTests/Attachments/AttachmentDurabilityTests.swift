import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Directory syncs for an ``AttachmentQueue`` that fail with EIO while a test says so, and count themselves.
final class SwitchableDirectorySync: @unchecked Sendable {
    private let lock = NSLock()
    private var failing: Bool
    private var count = 0

    init(failing: Bool) { self.failing = failing }

    func setFailing(_ failing: Bool) { lock.withLock { self.failing = failing } }

    /// How many directory syncs were asked for.
    var syncs: Int { lock.withLock { count } }

    /// The store's durability calls, with this directory sync.
    var durability: AttachmentDurability {
        AttachmentDurability(syncData: FileDurability.syncData(of:)) { path throws(FileDurability.Failure) in
            let fails = self.lock.withLock {
                self.count += 1
                return self.failing
            }
            if fails { throw FileDurability.Failure(operation: "fsync directory", errno: EIO) }
            try FileDurability.syncDirectory(path)
        }
    }
}

/// The attachment files are as durable as the journal's records: synced with the store's calls, a failed directory
/// sync reported, and no record that a committed item names forgotten at start.
struct AttachmentDurabilityTests {
    static let photo = AttachmentQueueTests.photo

    static func queue(in folder: TemporaryDirectory, sync: SwitchableDirectorySync,
                      context: SyncContext) async throws -> AttachmentQueue {
        try await AttachmentQueue(context: context, directory: folder.url.appendingPathComponent("files"),
                                  fields: AttachmentDevice.fields, transport: InMemoryAttachmentTransport(),
                                  settings: AttachmentSettings(), durability: sync.durability)
    }

    static func namesIn(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0 != ".partial" }
    }

    @Test func anAddWhoseDirectorySyncFailsThrowsAndKeepsNeitherRecordNorFile() async throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let context = SyncContext(dataSource: InMemoryDataSource(), remote: InMemoryRemote())
        let sync = SwitchableDirectorySync(failing: true)
        let queue = try await Self.queue(in: folder, sync: sync, context: context)
        let error = await #expect(throws: AttachmentError.self, "the add returned an id whose file's name may not survive a power loss") {
            try await queue.add(Self.photo)
        }
        guard case .file(_, _, let reason)? = error else {
            Issue.record("not a file error: \(String(describing: error))")
            return
        }
        #expect(reason.contains("fsync directory"), "\(reason)")
        #expect(sync.syncs == 1)
        #expect(try await AttachmentRecord.all(in: context.dataSource).isEmpty)
        let files = folder.url.appendingPathComponent("files")
        #expect(try Self.namesIn(files).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: files.appendingPathComponent(".partial").path).isEmpty)
    }

    @Test func anEraseWhoseDirectorySyncFailsThrows() async throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let context = SyncContext(dataSource: InMemoryDataSource(), remote: InMemoryRemote())
        let sync = SwitchableDirectorySync(failing: false)
        let queue = try await Self.queue(in: folder, sync: sync, context: context)
        _ = try await queue.add(Self.photo)
        sync.setFailing(true)
        await #expect(throws: AttachmentError.self, "the erase returned although its removals may not survive a power loss") {
            try await context.erase()
        }
    }

    /// A power cut after the app saved an item naming a new photo: the journal made both records durable, but the
    /// disk kept the queue's directory as it was before the photo's rename (the file still in `.partial`). The next
    /// start must keep the photo's record, so that the push holds the item instead of sending a reference to a file
    /// nobody has.
    @Test func aRecordThatACommittedItemNamesSurvivesAPowerCutThatLostItsFile() async throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let transport = InMemoryAttachmentTransport()
        let server = InMemoryRemote()
        let store = try await JournalDataSource(directory: folder.url.appendingPathComponent("store"))
        let device = try await AttachmentDevice(remote: server, transport: transport, folder: folder, dataSource: store)
        let named = try await device.queue.add(Self.photo)
        try await device.table.insert(["id": "i1", "photo": .string(named)])
        let unnamed = try await device.queue.add(Self.photo)
        try await store.close()
        for id in [named, unnamed] {
            try FileManager.default.moveItem(at: device.filesFolder.appendingPathComponent(id),
                                             to: device.filesFolder.appendingPathComponent(".partial/\(id)"))
        }

        let reopened = try await JournalDataSource(directory: folder.url.appendingPathComponent("store"))
        let restarted = try await AttachmentDevice(remote: server, transport: transport, folder: folder, dataSource: reopened)
        let records = try await AttachmentRecord.all(in: reopened)
        #expect(records[named]?.uploaded == false, "the record of a photo an item names was forgotten")
        #expect(records[unnamed] == nil, "the record of a photo no item names is kept")
        #expect(try await restarted.queue.state(of: named) == .missing)
        let error = await #expect(throws: PushError.self, "the item was sent naming a file nobody has") {
            try await restarted.context.push()
        }
        #expect(error?.errors.map(\.operation.itemId) == ["i1"])
        let message = error?.errors.first?.message ?? ""
        #expect(message.contains(named) && message.contains("add the file again"), "\(message)")
        #expect(await server.items(table: "Inspection").isEmpty)
        #expect(await transport.files.isEmpty)
        try await reopened.close()
    }
}
