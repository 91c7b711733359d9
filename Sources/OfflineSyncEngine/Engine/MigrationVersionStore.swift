import OfflineSyncCore
import OfflineSyncStore
/// The version a store's items were last migrated to (``SyncContext/migrationVersion()``), as one row of
/// `__config`: `{id: "migrationVersion", kind: "migrationVersion", value: <Int>}`. No row means 0.
enum MigrationVersionStore {
    static let rowID = "migrationVersion"

    /// The stored row, as ``SyncContext/erase()`` keeps it.
    static func row(in dataSource: any SyncContextDataSource) async throws -> JSONObject? {
        try await dataSource.read(table: EngineTables.config, id: rowID)
    }

    /// The stored version, 0 when none is stored.
    static func version(in dataSource: any SyncContextDataSource) async throws -> Int {
        guard let row = try await row(in: dataSource) else { return 0 }
        guard let value = row["value"]?.intValue, value >= 0, let version = Int(exactly: value) else {
            throw SyncError.corruptRecord(table: EngineTables.config, id: rowID, reason: "the migration version is not a whole number of 0 or more")
        }
        return version
    }

    /// The change that stores `version`.
    static func saving(_ version: Int) -> StoreChange {
        .upsert(table: EngineTables.config, items: [["id": .string(rowID), "kind": "migrationVersion", "value": .int(Int64(version))]])
    }
}
