public import OfflineSyncCore
import OfflineSyncStore
/// The refusals of ``SyncContext/migrate(_:)``.
extension SyncError {
    /// The migrations given to ``SyncContext/migrate(_:)`` are not a valid list; `reason` says why.
    public static func invalidMigrations(reason: String) -> SyncError {
        SyncError(.invalidMigrations, table: nil, "The migrations are invalid: \(reason). Give each migration its own version, 1 or more, and only user tables.")
    }

    /// A migration's transform threw, or returned an item it may not: nothing was migrated.
    public static func migrationFailed(version: Int, table: String, itemId: String, reason: String) -> SyncError {
        SyncError(.migrationFailed, table: table, itemId: itemId,
                  "Migration \(version) failed on item \"\(itemId)\" of table \(table): \(reason). Nothing was migrated; fix the migration and call migrate again.")
    }

    /// The store was migrated by a newer version of the app than the one running, which does not know its items'
    /// shape.
    public static func storeFromNewerApp(storeVersion: Int, knownVersion: Int) -> SyncError {
        SyncError(.storeFromNewerApp, table: nil,
                  "The store was migrated to version \(storeVersion) by a newer version of the app, but this one knows migrations up to \(knownVersion) only; its items would be read wrong. Update the app, or erase the store.")
    }
}

extension NamedCode where Domain == SyncError {
    /// The migrations given to ``SyncContext/migrate(_:)`` are not a valid list.
    public static var invalidMigrations: Self { Self(rawValue: "invalidMigrations") }
    /// A migration's transform threw, or returned an item it may not.
    public static var migrationFailed: Self { Self(rawValue: "migrationFailed") }
    /// The store was migrated by a newer version of the app.
    public static var storeFromNewerApp: Self { Self(rawValue: "storeFromNewerApp") }
}
