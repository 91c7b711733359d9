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

/// The attachment files are as durable as the journal's records: synced with the store's calls, and a failed
/// directory sync reported.
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
}
