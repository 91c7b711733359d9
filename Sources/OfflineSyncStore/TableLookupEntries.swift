import OfflineSyncCore
/// What a snapshot's lookup file holds for one table, in terms of the items' places in the snapshot (their
/// ordinals: 0 for the table's first item line, 1 for the next, …): each item's id, hashed, and each index's order.
/// With it, a store that has not loaded the snapshot yet finds an item by its id, or walks an index, reading only the
/// items it needs (``PersistedIndexQuery``).
package struct TableLookupEntries: Sendable {
    /// The hash of each item's id key (``ItemID/key(_:)``, ``hash(ofKey:)``) with the item's ordinal, sorted by hash,
    /// then ordinal.
    package var ids: [(hash: UInt64, ordinal: UInt32)]
    /// Each index of the table, in the order it was declared, with the ordinals of the items in the index's order.
    package var indexes: [(definition: IndexDefinition, ordinals: [UInt32])]

    /// The 64-bit FNV-1a hash of `key`'s UTF-8 bytes.
    package static func hash(ofKey key: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }
}

extension TableSet {
    /// The lookup entries of `table`, whose item in `written[n]`'s slot was written as its n-th item line; nil when
    /// an item of the table was not written (a slot ``forEachItemText(table:_:)`` skipped) or has no string id.
    package func lookupEntries(table: String, written: [Int32]) -> TableLookupEntries? {
        guard let items = tables[table], written.count == items.count else { return nil }
        var ordinals = [UInt32](repeating: .max, count: items.slotCount)
        var ids: [(hash: UInt64, ordinal: UInt32)] = []
        ids.reserveCapacity(written.count)
        for (ordinal, slot) in written.enumerated() {
            guard let id = items.storedID(of: slot) else { return nil }
            ordinals[Int(slot)] = UInt32(ordinal)
            ids.append((TableLookupEntries.hash(ofKey: ItemID.key(id)), UInt32(ordinal)))
        }
        ids.sort { $0.hash != $1.hash ? $0.hash < $1.hash : $0.ordinal < $1.ordinal }
        var lists: [(definition: IndexDefinition, ordinals: [UInt32])] = []
        for index in indexes[table] ?? [] {
            var order: [UInt32] = []
            order.reserveCapacity(written.count)
            index.forEachSlot { slot in order.append(ordinals[Int(slot)]) }
            guard order.count == written.count, !order.contains(.max) else { return nil }
            lists.append((index.definition, order))
        }
        return TableLookupEntries(ids: ids, indexes: lists)
    }
}
