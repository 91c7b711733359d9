import OfflineSyncCore
import OfflineSyncStore

/// An ``AttachmentQueue`` a context knows of, held weakly: the queue holds the context.
struct RegisteredAttachmentQueue: Sendable {
    weak var queue: AttachmentQueue?
}

extension SyncContext {
    /// Makes the context's pushes wait for `queue`'s uploads, its pulls start `queue`'s downloads, and its erase
    /// remove `queue`'s files.
    func register(_ queue: AttachmentQueue) {
        attachmentQueues.removeAll { $0.queue == nil }
        attachmentQueues.append(RegisteredAttachmentQueue(queue: queue))
    }

    /// Why an insert or update of `table` with `item` cannot be sent yet (an attachment it names failed to upload),
    /// once every attachment it names that was not uploaded is; nil when it can.
    func attachmentsReadyToSend(table: String, item: JSONObject?) async -> String? {
        for registered in attachmentQueues {
            if let queue = registered.queue, let problem = await queue.readyToSend(table: table, item: item) { return problem }
        }
        return nil
    }

    /// Tells the queues that `tables` were pulled.
    func attachmentsPulled(tables: Set<String>) async {
        for registered in attachmentQueues { await registered.queue?.pulled(tables: tables) }
    }

    /// The live queues, for ``erase()``.
    var liveAttachmentQueues: [AttachmentQueue] { attachmentQueues.compactMap(\.queue) }
}
