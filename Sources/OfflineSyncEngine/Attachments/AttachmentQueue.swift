public import OfflineSyncCore
import OfflineSyncStore
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Files that travel with their items: photos and documents an app adds offline, uploaded before the items that
/// name them reach the server, and downloaded when pulled items name them.
///
/// ```swift
/// let attachments = try await AttachmentQueue(context: context, directory: photosURL,
///                                             fields: [AttachmentField(table: "Inspection", field: "photo")],
///                                             transport: HTTPAttachmentTransport(url: { id in blobURL(id) }))
/// let photo = try await attachments.add(jpegData)                          // works offline
/// try await context.table("Inspection").insert(["id": "i1", "photo": .string(photo)])
/// try await context.push()              // uploads the photo first, then sends the inspection
/// let file = try await attachments.file(for: photo)                        // a local file URL
/// ```
///
/// - **Add offline:** ``add(_:)`` copies the bytes into the queue's directory (written aside, synced, then renamed:
///   a crash leaves the whole file or none) and returns a new id to store in an attachment field.
/// - **Upload before the reference:** a push sends an insert or update whose attachment field names a file not
///   uploaded yet only after uploading it; a failed upload fails that operation (an operation error, the operation
///   stays queued) and the rest of the push goes on.
/// - **Download what pulled items refer to:** after a pull, in the background when
///   ``AttachmentSettings/downloadsAfterPull`` is on, else on the first ``file(for:)``; ``sync()`` does both.
/// - **Kills and power loss:** the queue's state is a table of the context's store (`__attachments`), and its files
///   are synced as the journal store syncs its own; a half-written download is discarded at the next start, an
///   interrupted upload is sent again (uploads are idempotent by id), and the record of a file that an item names is
///   never forgotten (should the file be lost, the item is held back from the server).
/// - **Space:** beyond ``AttachmentSettings/cacheLimitBytes``, uploaded files are removed least recently used
///   first, except those of items with pending operations; ``SyncContext/erase()`` removes every file.
public actor AttachmentQueue {
    let context: SyncContext
    let files: AttachmentFiles
    let transport: any AttachmentTransport
    let settings: AttachmentSettings
    /// The watched fields, by table.
    let fieldsByTable: [String: [String]]
    /// The rows of `__attachments`, as last committed.
    var records: [String: AttachmentRecord] = [:]
    /// Holds the changes of ``records`` one at a time, each reading what the one before committed
    /// (``update(_:_:)``).
    let recordWrites = SerialGate()
    /// The ids whose records a write is storing now.
    var recordsBeingWritten: Set<String> = []
    /// The uses that ``touch(_:)`` recorded while a write of their records was in flight, by id: the write stores
    /// them once it committed.
    var lateUses: [String: Int64] = [:]
    /// The last use counter handed out (``AttachmentRecord/used``).
    var clock: Int64 = 0
    /// The uploads and downloads running, by id: a second request for the same file waits for the first.
    var transfers: [String: Task<String?, Never>] = [:]
    var bytesInFlight: Int64 = 0
    /// How many files local items refer to and the device lacks, as last counted.
    var pendingDownloads = 0
    /// The downloads started after a pull.
    var background: Task<Void, Never>?
    private var statusStreams = StreamFanOut<AttachmentStatus>()

    /// Opens the queue of `directory` (created when missing) for `context`, watching `fields`, and registers it with
    /// the context: a push then holds an operation whose attachment field names a file not yet uploaded.
    /// Discards what a crash left half written, and forgets files added by a call that never returned.
    /// - Throws: ``AttachmentError`` for an invalid field or directory, or when the directory cannot be read; a
    ///   data-source error.
    public init(context: SyncContext, directory: URL, fields: [AttachmentField],
                transport: any AttachmentTransport, settings: AttachmentSettings = AttachmentSettings()) async throws {
        try await self.init(context: context, directory: directory, fields: fields, transport: transport,
                            settings: settings, durability: .system)
    }

    /// The queue of `directory`, its files made durable with `durability` (a test's failing syncs).
    init(context: SyncContext, directory: URL, fields: [AttachmentField], transport: any AttachmentTransport,
         settings: AttachmentSettings, durability: AttachmentDurability) async throws {
        for field in fields {
            guard !field.field.isEmpty, (try? SyncContext.validateTable(field.table)) != nil else {
                throw AttachmentError.invalidField(table: field.table, field: field.field)
            }
        }
        self.context = context
        self.transport = transport
        self.settings = settings
        fieldsByTable = Dictionary(grouping: fields, by: \.table).mapValues { $0.map(\.field) }
        files = try AttachmentFiles(directory: directory, durability: durability)
        try files.discardPartials()
        try await recover()
        await context.register(self)
        publish()
    }

    /// Copies `data` into the queue's directory; returns the new attachment's id, to store in an attachment field.
    /// - Throws: ``AttachmentError`` when the file cannot be written; a data-source error.
    public func add(_ data: Data) async throws -> String {
        let partial = try files.writePartial(data)
        return try await adding(partial, bytes: Int64(data.count))
    }

    /// Copies the file at `file` into the queue's directory; returns the new attachment's id.
    /// - Throws: ``AttachmentError`` when the file cannot be read or written; a data-source error.
    public func add(contentsOf file: URL) async throws -> String {
        let (partial, bytes) = try files.copyPartial(of: file)
        return try await adding(partial, bytes: bytes)
    }

    /// The attachment's local file, downloaded first when the device lacks it; nil when neither the device nor the
    /// server has it.
    /// - Throws: ``AttachmentError/invalidID(_:)``; ``AttachmentError/transferFailed(id:reason:)`` when the download
    ///   failed.
    public func file(for id: String) async throws -> URL? {
        try AttachmentError.validate(id)
        if files.size(of: id) != nil {
            try await touch(id)
            return files.url(of: id)
        }
        if let record = records[id], !record.uploaded { return nil }
        if let failure = await transfer(id, download: true) {
            if records[id]?.missing == true { return nil }
            throw AttachmentError.transferFailed(id: id, reason: failure)
        }
        return files.size(of: id) == nil ? nil : files.url(of: id)
    }

    /// Uploads what is pending, downloads what local items refer to, then evicts beyond the cache limit. Transfers
    /// that fail are recorded (``state(of:)``) and tried again by the next call.
    /// - Throws: a data-source error.
    public func sync() async throws {
        await background?.value
        let uploads = records.values.filter { !$0.uploaded && files.size(of: $0.id) != nil }.map(\.id).sorted()
        await transferAll(uploads, download: false)
        try await downloadReferenced()
        try await evict()
    }

    /// The queue's status now and after every change (the newest only, when the reader falls behind).
    public func statusUpdates() -> AsyncStream<AttachmentStatus> {
        let (stream, continuation, key) = statusStreams.addStream(bufferingNewest: 1)
        continuation.yield(status)
        continuation.onTermination = { [weak self] _ in Task { await self?.removeStatusStream(key) } }
        return stream
    }

    /// Where one attachment stands.
    /// - Throws: ``AttachmentError/invalidID(_:)``.
    public func state(of id: String) async throws -> AttachmentState {
        try AttachmentError.validate(id)
        let present = files.size(of: id) != nil
        guard let record = records[id] else { return present ? .local : .pendingDownload }
        if record.missing { return .missing }
        if !record.uploaded {
            guard present else { return .missing }
            return record.failure.map(AttachmentState.failed) ?? .pendingUpload
        }
        if present { return .local }
        return record.failure.map(AttachmentState.failed) ?? .pendingDownload
    }

    /// The status as the records and transfers say now.
    var status: AttachmentStatus {
        AttachmentStatus(pendingUploads: records.values.count { !$0.uploaded && !$0.missing },
                         pendingDownloads: pendingDownloads, failed: records.values.count { $0.failure != nil },
                         bytesInFlight: bytesInFlight)
    }

    /// Sends the status to every reader.
    func publish() {
        statusStreams.send(status)
    }

    private func removeStatusStream(_ key: Int) {
        statusStreams.remove(key)
    }

    /// The next use counter.
    func tick() -> Int64 {
        clock += 1
        return clock
    }

    /// Records the new attachment, then gives its partial file its name and syncs the directory: a crash in between
    /// leaves a record without a file, which the next start forgets (the call never returned its id). When the
    /// rename or the directory sync fails, the file goes with its record: a file left without one would be taken
    /// for a download at the next start.
    private func adding(_ partial: URL, bytes: Int64) async throws -> String {
        let id = UUID().uuidString.lowercased()
        do {
            try await save([AttachmentRecord(id: id, uploaded: false, bytes: bytes, used: tick())])
            try files.moveIntoPlace(partial, id: id)
        } catch {
            files.removePartial(partial)
            files.remove(id)
            try? await forget([id])
            throw error
        }
        publish()
        return id
    }

    /// Loads the records and makes them agree with the files: a record of an added file that is not there is
    /// forgotten when no item names it (its add never returned), and kept when one does (the file was lost after the
    /// add returned, say by a power cut: the push then holds that item, and ``state(of:)`` says `missing`); a file
    /// without a record was downloaded just before a crash.
    private func recover() async throws {
        records = try await AttachmentRecord.all(in: context.dataSource)
        clock = records.values.map(\.used).max() ?? 0
        let present = Set(try files.ids().filter { (try? AttachmentError.validate($0)) != nil })
        let lacking = records.values.filter { !$0.uploaded && !present.contains($0.id) }.map(\.id)
        if !lacking.isEmpty {
            let named = try await referencedIDs().union(pinnedIDs())
            try await forget(lacking.filter { !named.contains($0) }.sorted())
        }
        var found: [AttachmentRecord] = []
        for id in present.sorted() where records[id] == nil {
            found.append(AttachmentRecord(id: id, uploaded: true, bytes: files.size(of: id) ?? 0, used: tick()))
        }
        try await save(found)
    }
}
