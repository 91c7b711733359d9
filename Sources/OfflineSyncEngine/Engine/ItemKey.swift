import OfflineSyncCore
import OfflineSyncStore
/// An item as the stores match it: its table and its id compared case-insensitively (``ItemID/key(_:)``); the key
/// of the engine's in-memory maps of items.
struct ItemKey: Hashable, Sendable {
    /// The table.
    let table: String
    /// The id's case-insensitive key.
    let id: String

    /// The key of item `itemId` of `table`.
    init(table: String, itemId: String) {
        self.table = table
        self.id = ItemID.key(itemId)
    }
}
