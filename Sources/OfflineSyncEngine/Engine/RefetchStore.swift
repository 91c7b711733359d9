import OfflineSyncCore
import OfflineSyncStore
/// The items the next pull of their table fetches by id, as rows of `__config`, one per item:
/// `{id: "refetch-<hash>", kind: "refetch", table, itemId}`.
///
/// A resolution that drops a local change together with the local item, without the server's copy in hand
/// (``SyncContext/cancelAndDiscard(_:)`` of an error without ``TableOperationError/serverItem``,
/// ``SyncContext/discard(_:keepingLocalItem:)``), records the item here in the same `apply`: an incremental pull would
/// not bring it back, since its delta token is usually past the item's last change on the server. The next pull of
/// the table fetches each recorded item by id before its pages, stores what the server holds, and removes the row
/// (``SyncContext/refetchDiscardedItems(table:permits:)``). The row id is a 128-bit hash of the table and the item's
/// key (an id may be 255 characters long, and its key may hold characters an id cannot); the row also stores both.
enum RefetchStore {
    /// The change that records `itemId` of `table` for the next pull to fetch.
    static func saving(table: String, itemId: String) -> StoreChange {
        .upsert(table: EngineTables.config, items: [[
            "id": .string(rowID(table: table, itemId: itemId)), "kind": "refetch",
            "table": .string(table), "itemId": .string(itemId),
        ]])
    }

    /// A stored record: its row's id, as stored, and the item it names.
    struct Record: Sendable, Hashable {
        var rowId: String
        var itemId: String
    }

    /// The change that removes these records (missing rows are no error). It goes by the ids the rows were stored
    /// under, never by a hash worked out again: the key an id hashes to may change with the Unicode data of a build.
    static func removing(_ records: [Record]) -> StoreChange {
        .delete(table: EngineTables.config, ids: records.map(\.rowId))
    }

    /// The change that removes every record of `table`.
    static func removingAll(table: String) -> StoreChange {
        .deleteAll(table: EngineTables.config, matching: Field("kind") == "refetch" && Field("table") == .string(table))
    }

    /// The records of `table`, in row id order.
    /// - Throws: a data-source error; ``SyncError/corruptRecord(table:id:reason:)`` for a row without a string `itemId`.
    static func records(table: String, in dataSource: any SyncContextDataSource) async throws -> [Record] {
        let query = Query(table: EngineTables.config, filter: Field("kind") == "refetch" && Field("table") == .string(table),
                          orderBy: [.ascending("id")])
        return try await dataSource.read(query).items.map { row in
            guard let rowId = row["id"]?.stringValue, let itemId = row["itemId"]?.stringValue else {
                throw SyncError.corruptRecord(table: EngineTables.config, id: row["id"]?.stringValue ?? "?",
                                              reason: "the refetch record has no string id or itemId")
            }
            return Record(rowId: rowId, itemId: itemId)
        }
    }

    /// `refetch-` and the hash of the UTF-8 of the table, a zero byte, and the item's key (``ItemID/key(_:)``).
    static func rowID(table: String, itemId: String) -> String {
        var bytes = Array(table.utf8)
        bytes.append(0)
        bytes.append(contentsOf: ItemID.key(itemId).utf8)
        return "refetch-" + DeltaTokenStore.digest(bytes)
    }
}
