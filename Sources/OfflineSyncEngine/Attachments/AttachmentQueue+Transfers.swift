import OfflineSyncCore
import OfflineSyncStore

extension AttachmentQueue {
    /// Uploads (or downloads) attachment `id`, or waits for its transfer already running; returns the failure in
    /// words, nil when it succeeded.
    func transfer(_ id: String, download: Bool) async -> String? {
        if let running = transfers[id] { return await running.value }
        let task = Task { download ? await self.performDownload(id) : await self.performUpload(id) }
        transfers[id] = task
        let failure = await task.value
        transfers[id] = nil
        return failure
    }

    /// Transfers every id of `ids`, at most ``AttachmentSettings/maximumConcurrentTransfers`` at once.
    func transferAll(_ ids: [String], download: Bool) async {
        let limit = max(1, settings.maximumConcurrentTransfers)
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            for id in ids {
                if running == limit { await group.next() } else { running += 1 }
                group.addTask { _ = await self.transfer(id, download: download) }
            }
        }
    }

    /// What a push asks before it sends an insert or update of `table` with `item`: each attachment field that names
    /// a file added on this device and not uploaded yet has it uploaded first. Returns why the operation cannot be
    /// sent (an upload failed), or nil.
    func readyToSend(table: String, item: JSONObject?) async -> String? {
        guard let fields = fieldsByTable[table], let item else { return nil }
        for field in fields {
            guard case .string(let id)? = item[field], let record = records[id], !record.uploaded else { continue }
            if let failure = await transfer(id, download: false) {
                return "The attachment \"\(id)\" of field \"\(field)\" is not uploaded yet, so the item was not sent: \(failure)"
            }
        }
        return nil
    }

    /// After a pull of `tables`: downloads in the background what the watched tables' items refer to, when the
    /// settings ask for it.
    func pulled(tables: Set<String>) {
        guard settings.downloadsAfterPull, !tables.isDisjoint(with: fieldsByTable.keys) else { return }
        let previous = background
        background = Task {
            await previous?.value
            try? await self.downloadReferenced()
        }
    }

    /// Downloads every file that local items of the watched tables refer to and the device lacks.
    func downloadReferenced() async throws {
        let lacking = try await referencedIDs().filter { id in
            files.size(of: id) == nil && records[id]?.uploaded != false
        }.sorted()
        pendingDownloads = lacking.count
        publish()
        await transferAll(lacking, download: true)
        pendingDownloads = lacking.count { files.size(of: $0) == nil }
        publish()
    }

    /// The attachment ids that local items of the watched tables name.
    func referencedIDs() async throws -> Set<String> {
        var ids: Set<String> = []
        for (table, fields) in fieldsByTable {
            for item in try await context.dataSource.read(Query(table: table)).items {
                ids.formUnion(Self.ids(in: item, fields: fields))
            }
        }
        return ids
    }

    /// The valid attachment ids that `fields` of `item` hold.
    static func ids(in item: JSONObject, fields: [String]) -> [String] {
        fields.compactMap { field in
            guard case .string(let id)? = item[field], (try? AttachmentError.validate(id)) != nil else { return nil }
            return id
        }
    }

    private func performUpload(_ id: String) async -> String? {
        guard let record = records[id], !record.uploaded else { return nil }
        guard files.size(of: id) != nil else {
            return "its file is no longer on this device and was never uploaded: add the file again and store its new id in the item"
        }
        let bytes = record.bytes
        bytesInFlight += bytes
        publish()
        var failure: String?
        do {
            try await transport.upload(files.url(of: id), id: id)
        } catch {
            failure = String(describing: error)
        }
        // Changes the record as it is once the upload ended, not as it was before: a use recorded meanwhile stays.
        // Should the record not be stored, the file is uploaded again later: uploads are idempotent by id.
        try? await update([id]) { [failure] _, record in
            guard record != nil else { return }
            if let failure {
                record?.failure = failure
            } else {
                record?.uploaded = true
                record?.failure = nil
            }
        }
        bytesInFlight -= bytes
        publish()
        return failure
    }

    /// Downloads into a partial file, syncs it, gives it its name, then records it: a crash in between leaves a
    /// partial file (discarded at the next start) or a whole file without a record (recorded at the next start).
    private func performDownload(_ id: String) async -> String? {
        let partial = files.newPartial()
        var downloaded: AttachmentRecord?
        var failure: String?
        var missing = false
        do {
            try await transport.download(id: id, to: partial)
            let bytes = try files.syncPartial(partial)
            try files.moveIntoPlace(partial, id: id)
            downloaded = AttachmentRecord(id: id, uploaded: true, bytes: bytes, used: tick())
        } catch let error as AttachmentTransportError {
            files.removePartial(partial)
            if case .notFound = error { missing = true } else { failure = error.description }
        } catch {
            files.removePartial(partial)
            failure = String(describing: error)
        }
        // A failure is noted on the record as it is once the download ended.
        try? await update([id]) { [downloaded, failure, missing] id, record in
            if let downloaded {
                record = downloaded
                return
            }
            var noted = record ?? AttachmentRecord(id: id, uploaded: true, bytes: 0, used: 0)
            if missing { noted.missing = true } else { noted.failure = failure }
            record = noted
        }
        publish()
        if missing { return "the server has no such attachment" }
        return failure
    }
}
