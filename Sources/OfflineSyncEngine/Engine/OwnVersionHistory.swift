import OfflineSyncCore
import OfflineSyncStore
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
///
/// It follows the store's commits: inside a transaction's body (between ``beginStaging()`` and ``takeStaged()``) its
/// changes are only noted, and the engine applies them (``apply(_:)``) once the transaction's changes are applied, or
/// drops them when the body throws or the store refuses the changes.
struct OwnVersionHistory: Sendable {
    /// One change, as noted inside a transaction's body.
    enum Change: Sendable {
        case record(ItemKey, replaced: String, by: String)
        case forget(ItemKey)
        case observe(ItemKey, version: String?)
        case forgetAll(table: String)
        case forgetEverything
    }

    private struct Entry: Sendable {
        /// The version the local item holds now, produced by this device's push.
        var current: String
        /// Earlier versions of the item that this device's pushes replaced, leading to `current`.
        var replaced: Set<String>
    }

    private var entries: [ItemKey: Entry] = [:]
    /// The changes noted inside the running transaction's body; nil outside one.
    private var staged: [Change]?

    /// Notes changes instead of making them, until ``takeStaged()``.
    mutating func beginStaging() { staged = [] }

    /// The changes noted since ``beginStaging()``; changes are made at once again from now on.
    mutating func takeStaged() -> [Change] {
        defer { staged = nil }
        return staged ?? []
    }

    /// Makes `changes`, in order: those of a transaction whose changes the store applied.
    mutating func apply(_ changes: [Change]) {
        for change in changes { make(change) }
    }

    /// Makes `change`, or notes it inside a transaction's body.
    private mutating func note(_ change: Change) {
        if staged != nil { staged?.append(change) } else { make(change) }
    }

    private mutating func make(_ change: Change) {
        switch change {
        case .record(let key, let old, let new):
            var entry = entries[key].flatMap { $0.current == old ? $0 : nil } ?? Entry(current: new, replaced: [])
            entry.current = new
            if entry.replaced.count >= Self.maximumVersionsPerItem { entry.replaced.removeAll() }
            entry.replaced.insert(old)
            if entries[key] == nil, entries.count >= Self.maximumItems { entries.removeAll() }
            entries[key] = entry
        case .forget(let key):
            entries[key] = nil
        case .observe(let key, let version):
            if let entry = entries[key], entry.current != version { entries[key] = nil }
        case .forgetAll(let table):
            entries = entries.filter { $0.key.table != table }
        case .forgetEverything:
            entries = [:]
        }
    }

    /// Whether no item is remembered (then ``observe(_:table:itemId:)`` has nothing to forget).
    var isEmpty: Bool { entries.isEmpty }

    /// The most items remembered at once.
    static let maximumItems = 4096
    /// The most replaced versions remembered per item.
    static let maximumVersionsPerItem = 16

    /// Records that this device's push replaced the local item's version `old` by `new`.
    mutating func record(table: String, itemId: String, replaced old: String?, by new: String?) {
        guard let old, let new, old != new else { return }
        note(.record(ItemKey(table: table, itemId: itemId), replaced: old, by: new))
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
        note(.forget(ItemKey(table: table, itemId: itemId)))
    }

    /// Forgets the item unless `version` is the one this device's push produced for it (a pull that brought back
    /// the device's own row).
    mutating func observe(_ version: String?, table: String, itemId: String) {
        note(.observe(ItemKey(table: table, itemId: itemId), version: version))
    }

    /// Forgets every item of `table`.
    mutating func forgetAll(table: String) {
        note(.forgetAll(table: table))
    }

    /// Forgets every item (the store was erased).
    mutating func forgetEverything() {
        note(.forgetEverything)
    }
}
