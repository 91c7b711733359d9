import OfflineSyncCore
import OfflineSyncStore
/// Delta tokens of incremental pulls, one per (table, query id), as rows of `__config`:
/// `{id: "deltaToken-<hash>", kind: "deltaToken", table, queryId, value: "<ISO 8601 ms>", afterId: "<id>",
/// filterDigest: "<32 hex>"}`: the key (``PullKey``) of the last record the pull stored, `updatedAt` in `value` and
/// its id in `afterId`. A row without `afterId` (written by a version that paged by position, or saved while a pull
/// paged one instant by position) means "every record at or after `value`", so such a token still works: the next
/// pull asks for `updatedAt ge value` once, and stores a full key with its first page.
///
/// A query id may hold characters an item id cannot (`/`, `?`, …) and may be 255 characters long, so the row
/// id is a 128-bit hash of (table, query id); the row also stores both, and a lookup checks them. `filterDigest`
/// is a 128-bit hash of the pull query's filter (``Filter/canonicalForm``): a token is only valid for the filter it
/// was stored with. Earlier versions hashed the filter's OData v3 text (`odata(.odataV3)`) instead; such a digest is still accepted
/// for the filter that wrote it, and replaced by the canonical one when the token is next saved.
enum DeltaTokenStore {
    /// The stored token of a query, as a pull may use it.
    struct Lookup: Sendable, Equatable {
        /// The key to pull after, or nil: pull from the start.
        var key: PullKey?
        /// Whether a token was stored for another filter (or, written by an older version, for an unknown one) and
        /// is not used: records that newly match would otherwise be missed.
        var filterChanged: Bool
    }

    /// The stored token of (table, query id) in milliseconds since 1970, whatever filter it was stored for; nil
    /// when there is none.
    static func token(table: String, queryId: String, in dataSource: any SyncContextDataSource) async throws -> Int64? {
        try await storedToken(table: table, queryId: queryId, in: dataSource)?.key.updatedAt
    }

    /// The stored key of (table, query id), whatever filter it was stored for; nil when there is none.
    static func key(table: String, queryId: String, in dataSource: any SyncContextDataSource) async throws -> PullKey? {
        try await storedToken(table: table, queryId: queryId, in: dataSource)?.key
    }

    /// The stored token of (table, query id) as a pull of `filter` may use it.
    static func lookup(table: String, queryId: String, filter: Filter?,
                       in dataSource: any SyncContextDataSource) async throws -> Lookup {
        guard let stored = try await storedToken(table: table, queryId: queryId, in: dataSource) else {
            return Lookup(key: nil, filterChanged: false)
        }
        guard let digest = stored.filterDigest, digest == filterDigest(filter) || digest == legacyFilterDigest(filter) else {
            return Lookup(key: nil, filterChanged: true)
        }
        return Lookup(key: stored.key, filterChanged: false)
    }

    private static func storedToken(table: String, queryId: String,
                                    in dataSource: any SyncContextDataSource) async throws -> (key: PullKey, filterDigest: String?)? {
        guard let row = try await dataSource.read(table: EngineTables.config, id: rowID(table: table, queryId: queryId)),
              row["table"]?.stringValue == table, row["queryId"]?.stringValue == queryId,
              let value = row["value"]?.stringValue
        else { return nil }
        guard let milliseconds = Timestamp.milliseconds(from: value) else {
            throw SyncError.corruptRecord(table: EngineTables.config, id: rowID(table: table, queryId: queryId),
                                          reason: "the delta token \"\(value)\" is not an ISO 8601 timestamp")
        }
        var afterId: String?
        switch row["afterId"] {
        case nil, .null?: afterId = nil
        case .string(let id)?: afterId = id
        case let other?:
            throw SyncError.corruptRecord(table: EngineTables.config, id: rowID(table: table, queryId: queryId),
                                          reason: "the delta token's afterId \(other.jsonString()) is not a string")
        }
        return (PullKey(updatedAt: milliseconds, id: afterId), row["filterDigest"]?.stringValue)
    }

    /// The change that stores `key` as the token of (table, query id) and `filter`.
    static func saving(_ key: PullKey, table: String, queryId: String, filter: Filter?) -> StoreChange {
        var row: JSONObject = [
            "id": .string(rowID(table: table, queryId: queryId)), "kind": "deltaToken",
            "table": .string(table), "queryId": .string(queryId),
            "value": .string(Timestamp.string(fromMilliseconds: key.updatedAt)),
            "filterDigest": .string(filterDigest(filter)),
        ]
        if let id = key.id { row["afterId"] = .string(id) }
        return .upsert(table: EngineTables.config, items: [row])
    }

    /// The change that deletes every token of `table`.
    static func removingAll(table: String) -> StoreChange {
        .deleteAll(table: EngineTables.config, matching: Field("kind") == "deltaToken" && Field("table") == .string(table))
    }

    static func rowID(table: String, queryId: String) -> String {
        var bytes = Array(table.utf8)
        bytes.append(0)
        bytes.append(contentsOf: queryId.utf8)
        return "deltaToken-" + digest(bytes)
    }

    /// The digest of a pull query's filter: the hash of its canonical form (of the empty text for no filter).
    static func filterDigest(_ filter: Filter?) -> String {
        digest(Array((filter?.canonicalForm ?? "").utf8))
    }

    /// The digest earlier versions stored: the hash of the filter's OData v3 text (`odata(.odataV3)`) (of the empty text for no filter).
    /// Accepted when reading, never written. It holds only while `odata(.odataV3)` writes what those versions wrote
    /// (`FilterODataTests` pins the text); should it change, such tokens are reset, never misused.
    static func legacyFilterDigest(_ filter: Filter?) -> String {
        digest(Array((filter?.odata(.odataV3) ?? "").utf8))
    }

    /// 128 bits as 32 lower-case hex digits: two 64-bit FNV-1a hashes with different offset bases.
    static func digest(_ bytes: [UInt8]) -> String {
        func fnv1a(_ basis: UInt64) -> String {
            var hash = basis
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
            let hex = String(hash, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }
        return fnv1a(0xCBF2_9CE4_8422_2325) + fnv1a(0x84222325_CBF29CE4)
    }
}
