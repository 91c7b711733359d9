import OfflineSyncCore
import OfflineSyncStore

extension AttachmentQueue {
    /// Changes the records of `ids` as one write to the context's store: waits for the changes before it to commit,
    /// lets `change` edit each record as they left it (nil: there is none; set to nil: forget it), stores the
    /// results, then puts them in ``records``. A record is never read before an `await` and written after it, so a
    /// change made meanwhile (an upload's result, a use) cannot be overwritten.
    /// - Parameters:
    ///   - ids: the records to change.
    ///   - change: edits the record of an id, given with it.
    /// - Throws: a data-source error; then nothing of the change is stored or kept.
    func update(_ ids: [String], _ change: (_ id: String, _ record: inout AttachmentRecord?) -> Void) async throws {
        guard !ids.isEmpty else { return }
        await recordWrites.lock()
        do {
            var changed: [(id: String, record: AttachmentRecord?)] = []
            for id in Set(ids).sorted() {
                var record = records[id]
                change(id, &record)
                if record != records[id] { changed.append((id, record)) }
            }
            try await write(changed)
        } catch {
            await recordWrites.unlock()
            throw error
        }
        // A use is a hint for eviction: one that cannot be stored only makes the order less exact.
        try? await writeLateUses()
        await recordWrites.unlock()
    }

    /// Stores `changed` records (replacing the rows of their ids).
    func save(_ changed: [AttachmentRecord]) async throws {
        let byID = Dictionary(changed.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        try await update(Array(byID.keys)) { id, record in record = byID[id] }
    }

    /// Removes the records of `ids`.
    func forget(_ ids: [String]) async throws {
        try await update(ids) { _, record in record = nil }
    }

    /// Marks `id` used now, for eviction. While a write of its record is in flight, the use is left to that write,
    /// which stores it once it committed (this call does not wait behind it).
    func touch(_ id: String) async throws {
        guard records[id] != nil else { return }
        let used = tick()
        if recordsBeingWritten.contains(id) {
            lateUses[id] = used
            return
        }
        try await update([id]) { _, record in
            if let last = record?.used, last < used { record?.used = used }
        }
    }

    /// Writes `changed` to the context's store, then to ``records``; call holding ``recordWrites``.
    private func write(_ changed: [(id: String, record: AttachmentRecord?)]) async throws {
        let saved = changed.compactMap(\.record)
        let removed = changed.filter { $0.record == nil }.map(\.id)
        var changes: [StoreChange] = []
        if !saved.isEmpty { changes.append(AttachmentRecord.saving(saved)) }
        if !removed.isEmpty { changes.append(AttachmentRecord.removing(removed)) }
        guard !changes.isEmpty else { return }
        recordsBeingWritten = Set(changed.map(\.id))
        defer { recordsBeingWritten = [] }
        try await context.dataSource.apply(changes)
        for (id, record) in changed { records[id] = record }
    }

    /// Writes the uses recorded while the writes before were in flight, until none is left; call holding
    /// ``recordWrites``.
    private func writeLateUses() async throws {
        while !lateUses.isEmpty {
            let uses = lateUses
            lateUses = [:]
            var changed: [(id: String, record: AttachmentRecord?)] = []
            for (id, used) in uses.sorted(by: { $0.key < $1.key }) {
                guard var record = records[id], record.used < used else { continue }
                record.used = used
                changed.append((id, record))
            }
            try await write(changed)
        }
    }
}
