import OfflineSyncCore
import OfflineSyncStore

/// One row of `__attachments`: what the queue knows of an attachment beside its file.
///
/// Row fields: `id`; `uploaded` (false for a file added on this device and not on the server yet); `bytes`; `used`
/// (a counter that orders files by last use, for eviction); `failure` (the last transfer's error, when it failed);
/// `missing` (true once a download found no file on the server).
struct AttachmentRecord: Sendable, Hashable {
    var id: String
    var uploaded: Bool
    var bytes: Int64
    var used: Int64
    var failure: String?
    var missing = false

    /// The row's item.
    var item: JSONObject {
        var item: JSONObject = ["id": .string(id), "uploaded": .bool(uploaded), "bytes": .int(bytes), "used": .int(used)]
        if let failure { item["failure"] = .string(failure) }
        if missing { item["missing"] = .bool(true) }
        return item
    }

    /// The record a row holds, or nil for a row of another shape.
    init?(_ item: JSONObject) {
        guard case .string(let id)? = item["id"], case .bool(let uploaded)? = item["uploaded"],
              let bytes = item["bytes"]?.intValue, let used = item["used"]?.intValue else { return nil }
        self.init(id: id, uploaded: uploaded, bytes: bytes, used: used)
        if case .string(let failure)? = item["failure"] { self.failure = failure }
        if case .bool(true)? = item["missing"] { missing = true }
    }

    /// A record with these fields.
    init(id: String, uploaded: Bool, bytes: Int64, used: Int64, failure: String? = nil, missing: Bool = false) {
        self.id = id
        self.uploaded = uploaded
        self.bytes = bytes
        self.used = used
        self.failure = failure
        self.missing = missing
    }

    /// The change that stores `records`.
    static func saving(_ records: [AttachmentRecord]) -> StoreChange {
        .upsert(table: EngineTables.attachments, items: records.map(\.item))
    }

    /// The change that removes the records of `ids`.
    static func removing(_ ids: [String]) -> StoreChange {
        .delete(table: EngineTables.attachments, ids: ids)
    }

    /// Every record `dataSource` holds, by id.
    static func all(in dataSource: any SyncContextDataSource) async throws -> [String: AttachmentRecord] {
        let rows = try await dataSource.read(Query(table: EngineTables.attachments)).items
        var records: [String: AttachmentRecord] = [:]
        for row in rows { if let record = AttachmentRecord(row) { records[record.id] = record } }
        return records
    }
}
