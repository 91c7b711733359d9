/// Delta tokens of incremental pulls, one per (table, query id), as rows of `__config`:
/// `{id: "deltaToken-<hash>", kind: "deltaToken", table, queryId, value: "<ISO 8601 ms>"}`.
///
/// A query id may hold characters an item id cannot (`/`, `?`, …) and may be 255 characters long, so the row
/// id is a 128-bit hash of (table, query id); the row also stores both, and a lookup checks them.
enum DeltaTokenStore {
    /// The stored token in milliseconds since 1970, or nil when the query has none.
    static func token(table: String, queryId: String, in dataSource: any SyncContextDataSource) async throws -> Int64? {
        guard let row = try await dataSource.read(table: EngineTables.config, id: rowID(table: table, queryId: queryId)),
              row["table"]?.stringValue == table, row["queryId"]?.stringValue == queryId,
              let value = row["value"]?.stringValue
        else { return nil }
        guard let milliseconds = Timestamp.milliseconds(from: value) else {
            throw SyncError.corruptRecord(table: EngineTables.config, id: rowID(table: table, queryId: queryId),
                                          reason: "the delta token \"\(value)\" is not an ISO 8601 timestamp")
        }
        return milliseconds
    }

    /// The change that stores `token` for (table, query id).
    static func saving(_ token: Int64, table: String, queryId: String) -> StoreChange {
        .upsert(table: EngineTables.config, items: [[
            "id": .string(rowID(table: table, queryId: queryId)), "kind": "deltaToken",
            "table": .string(table), "queryId": .string(queryId),
            "value": .string(Timestamp.string(fromMilliseconds: token)),
        ]])
    }

    /// The change that deletes every token of `table`.
    static func removingAll(table: String) -> StoreChange {
        .deleteAll(table: EngineTables.config, matching: Field("kind") == "deltaToken" && Field("table") == .string(table))
    }

    static func rowID(table: String, queryId: String) -> String {
        var bytes = Array(table.utf8)
        bytes.append(0)
        bytes.append(contentsOf: queryId.utf8)
        func fnv1a(_ basis: UInt64) -> String {
            var hash = basis
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
            let hex = String(hash, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }
        return "deltaToken-" + fnv1a(0xCBF2_9CE4_8422_2325) + fnv1a(0x84222325_CBF29CE4)
    }
}
