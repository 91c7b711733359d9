public import OfflineSyncCore
import OfflineSyncStore
/// One step in the history of an app's local item shapes: how the items of some tables change when the app's
/// models change (a field renamed, split, given a default). ``SyncContext/migrate(_:)`` applies the steps the store
/// has not had yet.
///
/// ```swift
/// let renameTitle = Migration(version: 2, tables: ["TodoItem"]) { _, item in
///     var item = item
///     item["text"] = item.removeValue(forKey: "title")
///     item["priority"] = item["priority"] ?? 0
///     return item
/// }
/// try await context.migrate([renameTitle])
/// ```
public struct Migration: Sendable {
    /// The step's number: 1, 2, 3 …; steps are applied in ascending order, each at most once per store.
    public var version: Int
    /// The tables whose items it transforms.
    public var tables: Set<String>
    /// The new item, or nil to remove it locally. Runs on every item of `tables`, pending ones included; the
    /// result keeps the item's `id` (a missing `id` is filled in) and its system properties (`version`,
    /// `createdAt`, `updatedAt`, `deleted`): one the result does not hold, in any casing, is taken from the item, so
    /// a transform may build a new item (decode the old model and encode the new one) and the next update still goes
    /// out with `If-Match`.
    public var transform: @Sendable (_ table: String, _ item: JSONObject) throws -> JSONObject?

    /// Creates a migration step.
    public init(version: Int, tables: Set<String>,
                transform: @escaping @Sendable (_ table: String, _ item: JSONObject) throws -> JSONObject?) {
        self.version = version
        self.tables = tables
        self.transform = transform
    }
}
