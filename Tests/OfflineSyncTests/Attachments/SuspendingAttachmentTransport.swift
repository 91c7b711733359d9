import Foundation
@testable import OfflineSyncCore
import OfflineSyncTesting

/// An attachment transport over an ``InMemoryAttachmentTransport`` whose uploads, once started, wait until the test
/// lets them go on: the test acts while an upload is in flight, without timing.
actor SuspendingAttachmentTransport: AttachmentTransport {
    let base = InMemoryAttachmentTransport()
    /// The id of each upload that started and now waits, in order.
    nonisolated let startedUploads: AsyncStream<String>
    private let startedContinuation: AsyncStream<String>.Continuation
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var holding = true

    init() {
        (startedUploads, startedContinuation) = AsyncStream.makeStream()
    }

    /// Lets the waiting uploads go on; later ones no longer wait.
    func release() {
        holding = false
        for upload in waiting { upload.resume() }
        waiting = []
    }

    func upload(_ file: URL, id: String) async throws {
        if holding {
            startedContinuation.yield(id)
            await withCheckedContinuation { waiting.append($0) }
        }
        try await base.upload(file, id: id)
    }

    func download(id: String, to destination: URL) async throws {
        try await base.download(id: id, to: destination)
    }

    func delete(id: String) async throws {
        try await base.delete(id: id)
    }
}
