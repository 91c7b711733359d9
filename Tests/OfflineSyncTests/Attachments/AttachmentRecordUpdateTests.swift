import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Each change to an attachment's record reads the record as the changes before it left it: a use recorded while an
/// upload runs, or while its result is being written, is kept, and the upload is not undone.
struct AttachmentRecordUpdateTests {
    static let photo = AttachmentQueueTests.photo

    static func isUploadOfRecord(_ changes: [StoreChange]) -> Bool {
        changes.contains { change in
            guard case .upsert(EngineTables.attachments, let items) = change else { return false }
            return items.contains { $0["uploaded"] == .bool(true) }
        }
    }

    @Test func anUploadKeepsAUseRecordedWhileItRan() async throws {
        let transport = SuspendingAttachmentTransport()
        let device = try await AttachmentDevice(remote: InMemoryRemote(), transport: transport)
        defer { device.folder.remove() }
        let id = try await device.queue.add(Self.photo)
        let sync = Task { try await device.queue.sync() }
        for await started in transport.startedUploads {
            #expect(started == id)
            break
        }
        _ = try #require(try await device.queue.file(for: id))
        let used = try #require(try await AttachmentRecord.all(in: device.context.dataSource)[id]).used
        await transport.release()
        try await sync.value
        let record = try #require(try await AttachmentRecord.all(in: device.context.dataSource)[id])
        #expect(record.uploaded)
        #expect(record.used == used, "the upload set the use counter back from \(used) to \(record.used)")
    }

    @Test func aUseRecordedWhileAnUploadIsWrittenDoesNotUndoTheUpload() async throws {
        let transport = InMemoryAttachmentTransport()
        let dataSource = HeldApplyDataSource()
        let device = try await AttachmentDevice(remote: InMemoryRemote(), transport: transport, dataSource: dataSource)
        defer { device.folder.remove() }
        let id = try await device.queue.add(Self.photo)
        let added = try #require(try await AttachmentRecord.all(in: dataSource)[id]).used
        await dataSource.hold(where: Self.isUploadOfRecord)
        let sync = Task { try await device.queue.sync() }
        for await _ in dataSource.held { break }
        _ = try #require(try await device.queue.file(for: id))
        await dataSource.release()
        try await sync.value
        let record = try #require(try await AttachmentRecord.all(in: dataSource)[id])
        #expect(record.uploaded, "a use recorded while the upload's record was written undid the upload")
        #expect(record.used > added, "the use recorded while the upload's record was written is lost")
        try await device.queue.sync()
        #expect(await transport.requests.filter { $0 == .upload(id) }.count == 1, "the upload was redone")
    }
}
