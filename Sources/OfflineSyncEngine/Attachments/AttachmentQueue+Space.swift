import OfflineSyncCore
import OfflineSyncStore

extension AttachmentQueue {
    /// Removes uploaded files, least recently used first, until the files take no more than
    /// ``AttachmentSettings/cacheLimitBytes``. A file not uploaded yet, or named by an item with a pending operation
    /// (its local item or the operation's own copy), is never removed; a removed file that an item still names is
    /// downloaded again when asked for.
    func evict() async throws {
        guard Self.presentRecords(records, files: files).bytes > settings.cacheLimitBytes else { return }
        let pinned = try await pinnedIDs()
        // Read the records again after the await: a use recorded meanwhile moves its file back in the order.
        var (present, total) = Self.presentRecords(records, files: files)
        guard total > settings.cacheLimitBytes else { return }
        var evicted: [String] = []
        for record in present.filter({ $0.uploaded && !pinned.contains($0.id) }).sorted(by: { $0.used < $1.used }) {
            guard total > settings.cacheLimitBytes else { break }
            files.remove(record.id)
            total -= record.bytes
            evicted.append(record.id)
        }
        try await forget(evicted)
        publish()
    }

    /// The records whose files are present, and the bytes they take.
    private static func presentRecords(_ records: [String: AttachmentRecord],
                                       files: AttachmentFiles) -> (records: [AttachmentRecord], bytes: Int64) {
        let present = records.values.filter { files.size(of: $0.id) != nil }
        return (present, present.reduce(Int64(0)) { $0 + $1.bytes })
    }

    /// The ids that items with pending operations name, in their local item or in the operation's own copy.
    func pinnedIDs() async throws -> Set<String> {
        var ids: Set<String> = []
        for operation in try await context.queue.operations() {
            guard let fields = fieldsByTable[operation.table] else { continue }
            if let item = try await context.dataSource.read(table: operation.table, id: operation.itemId) {
                ids.formUnion(Self.ids(in: item, fields: fields))
            }
            if let copy = operation.item { ids.formUnion(Self.ids(in: copy, fields: fields)) }
        }
        return ids
    }

    /// Before ``SyncContext/erase()`` removes the queue's records with every table: stops the transfers running, so
    /// that none records anything after the erase.
    func stopTransfers() async {
        background?.cancel()
        await background?.value
        background = nil
        for task in transfers.values { task.cancel() }
        for task in transfers.values { _ = await task.value }
    }

    /// After ``SyncContext/erase()`` removed the queue's records with every table: removes every file.
    func erased() throws {
        try files.removeAll()
        records = [:]
        lateUses = [:]
        pendingDownloads = 0
        publish()
    }
}
