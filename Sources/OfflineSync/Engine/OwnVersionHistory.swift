/// The item versions that this context's own pushes replaced, kept in memory so that a local write based on a
/// read made before the push landed is sent over the version the push produced, not refused by the server as a
/// conflict with the device itself.
///
/// An app reads item `x` at version V1 while the push of `x`'s pending change is under way; the push lands, and the
/// local item takes the server's V2. The app then updates or deletes what it read, still carrying V1. V1 was
/// replaced by this device's own write, so the write is rebased onto V2. A V1 replaced by anything else (a pulled
/// change of another writer, a resolution) is not rebased: that is a real conflict.
///
/// Memory only: the window it covers is a read and a write in one process. It forgets everything when it holds
/// more than ``maximumItems`` items, which at worst brings back the conflict it avoids.
struct OwnVersionHistory: Sendable {
    private struct Entry: Sendable {
        /// The version the local item holds now, produced by this device's push.
        var current: String
        /// Earlier versions of the item that this device's pushes replaced, leading to `current`.
        var replaced: Set<String>
    }

    private var entries: [ItemKey: Entry] = [:]

    /// Whether no item is remembered (then ``observe(_:table:itemId:)`` has nothing to forget).
    var isEmpty: Bool { entries.isEmpty }

    /// The most items remembered at once.
    static let maximumItems = 4096
    /// The most replaced versions remembered per item.
    static let maximumVersionsPerItem = 16

    /// Records that this device's push replaced the local item's version `old` by `new`.
    mutating func record(table: String, itemId: String, replaced old: String?, by new: String?) {
        let key = ItemKey(table: table, itemId: itemId)
        guard let old, let new, old != new else { return }
        var entry = entries[key].flatMap { $0.current == old ? $0 : nil } ?? Entry(current: new, replaced: [])
        entry.current = new
        if entry.replaced.count >= Self.maximumVersionsPerItem { entry.replaced.removeAll() }
        entry.replaced.insert(old)
        if entries[key] == nil, entries.count >= Self.maximumItems { entries.removeAll() }
        entries[key] = entry
    }

    /// The version this device's own pushes replaced `version` with, when they did: a local write carrying
    /// `version` should carry it instead, provided the local item still holds it. Nil otherwise.
    func replacement(for version: String?, table: String, itemId: String) -> String? {
        guard let version, let entry = entries[ItemKey(table: table, itemId: itemId)],
              entry.replaced.contains(version) else { return nil }
        return entry.current
    }

    /// Forgets the item: something other than this device's push changed it.
    mutating func forget(table: String, itemId: String) {
        entries[ItemKey(table: table, itemId: itemId)] = nil
    }

    /// Forgets the item unless `version` is the one this device's push produced for it (a pull that brought back
    /// the device's own row).
    mutating func observe(_ version: String?, table: String, itemId: String) {
        let key = ItemKey(table: table, itemId: itemId)
        if let entry = entries[key], entry.current != version { entries[key] = nil }
    }

    /// Forgets every item of `table`.
    mutating func forgetAll(table: String) {
        entries = entries.filter { $0.key.table != table }
    }
}
