import OfflineSyncCore
/// The items of one table, held compactly: each item packed (``PackedObject``, with the table's ``shape``) in the
/// arena's chunks (``ItemArena``), found by key through an open-addressing hash table of slot numbers. An item is
/// decoded when it is read.
///
/// An item costs its packed form (68 bytes for a six-field record of the benchmark, whose JSON text is 175) plus
/// 16 bytes of slot and 11 to 21 bytes of hash table, against roughly 1 KiB as a `JSONObject`. Replaced and
/// deleted items leave garbage behind, which is reclaimed once it outweighs the live items.
struct ItemTable: Sendable {
    /// Where an item's packed form lies.
    struct Slot: Sendable {
        /// Location in `arena` (``ItemArena``); -1 for a free slot.
        var offset: Int
        var length: UInt32
        /// The low bits of the hash of the item's key, checked before a key is compared.
        var hash: UInt32
        var isFree: Bool { offset < 0 }
    }

    private var arena = ItemArena()
    private var slots: [Slot] = []
    private var freeSlots: [Int32] = []
    /// The slots by their keys' hashes.
    private var buckets = SlotBuckets()
    private(set) var count = 0
    private var arenaGarbage = 0
    /// The keys of the first item stored: an item with exactly these keys is packed without them, and decoded as a
    /// copy of a prototype instead of a dictionary built by hashing each key (``JSONObjectShape``). Never changes
    /// once set, since the packed items depend on it.
    private(set) var shape: JSONObjectShape?

    init() {}

    var isEmpty: Bool { count == 0 }

    // MARK: Lookup

    /// The slot of the item whose key is `key`, and the item, or nil.
    func find(key: String) -> (slot: Int32, item: JSONObject)? {
        find(key: key, hash: Self.hash(key))
    }

    /// The item whose id is `id` or differs from it only in case (``ItemID/key(_:)``), or nil: ``find(key:)``
    /// without building the key, for a point read.
    func find(id: String) -> JSONObject? {
        var utf8 = id
        guard let hash = utf8.withUTF8(Self.hash(ofKeyOf:)) else { return find(key: ItemID.key(id))?.item }
        var found: JSONObject?
        _ = buckets.probe(hash: hash) { slot in
            guard let item = decode(slot), case .string(let stored)? = item["id"], ItemID.haveSameKey(stored, id) else {
                return false
            }
            found = item
            return true
        }
        return found
    }

    /// ``find(key:)`` with the key's ``hash(_:)`` computed by the caller.
    private func find(key: String, hash: UInt32) -> (slot: Int32, item: JSONObject)? {
        var found: JSONObject?
        let slot = buckets.probe(hash: hash) { slot in
            guard let item = decode(slot), case .string(let id)? = item["id"], ItemID.hasKey(id, key) else { return false }
            found = item
            return true
        }
        guard let slot, let found else { return nil }
        return (slot, found)
    }

    /// The slot of the item whose key is `key` (whose hash is `hash`), or nil, found without decoding the item:
    /// only its id is read. `key` is asked for only when an item's hash matches.
    private func slot(ofKey key: @autoclosure () -> String, hash: UInt32) -> Int32? {
        buckets.probe(hash: hash) { slot in storedID(of: slot).map { ItemID.hasKey($0, key()) } ?? false }
    }

    /// The slot of the item whose id is `id` or differs from it only in case (``ItemID/key(_:)``), or nil, found
    /// without decoding any item: only the ids of the items probed are read.
    func slot(ofID id: String) -> Int32? {
        var utf8 = id
        guard let hash = utf8.withUTF8(Self.hash(ofKeyOf:)) else {
            let key = ItemID.key(id)
            return slot(ofKey: key, hash: Self.hash(key))
        }
        return locate(id: id, hash: hash, decoding: false)?.slot
    }

    /// The slot of the item whose id has the same key as `id` (whose key's hash is `hash`), with the item itself
    /// when `decoding`, or nil; only its id is read otherwise.
    private func locate(id: String, hash: UInt32, decoding: Bool) -> (slot: Int32, item: JSONObject?)? {
        var found: JSONObject?
        let slot = buckets.probe(hash: hash) { slot in
            if decoding {
                guard let item = decode(slot), case .string(let stored)? = item["id"], ItemID.haveSameKey(stored, id) else {
                    return false
                }
                found = item
                return true
            }
            return hasID(in: slot, sameKeyAs: id)
        }
        return slot.map { ($0, found) }
    }

    /// The slot of the item whose key is `key`, with the item itself when `decoding`, or nil.
    private func locate(key: String, hash: UInt32, decoding: Bool) -> (slot: Int32, item: JSONObject?)? {
        decoding ? find(key: key, hash: hash).map { ($0.slot, $0.item) } : slot(ofKey: key, hash: hash).map { ($0, nil) }
    }

    /// Whether the item in `slot` has an id with the same key as `id` (``ItemID/haveSameKey(_:_:)``), compared where
    /// it is packed when both are printable ASCII (no string is built), and read out otherwise.
    private func hasID(in slot: Int32, sameKeyAs id: String) -> Bool {
        var id = id
        let same = id.withUTF8 { id in
            withPacked(slot) { packed in
                packed.flatMap { PackedObject.withUTF8(of: "id", in: $0, shape: shape) { ItemID.sameKey(printableASCII: $0, id) } }
            }
        }
        if let same { return same }
        guard let stored = storedID(of: slot) else { return false }
        return ItemID.haveSameKey(stored, id)
    }

    /// The id of the item in `slot`, read from its packed form without building the other members.
    func storedID(of slot: Int32) -> String? {
        let id = withPacked(slot) { packed in packed.flatMap { PackedObject.value(of: "id", in: $0, shape: shape) } }
        guard case .string(let id)? = id else { return nil }
        return id
    }

    /// The item in `slot`, decoded; nil for a free slot.
    func decode(_ slot: Int32) -> JSONObject? {
        withPacked(slot) { packed in packed.flatMap { PackedObject.decode($0, shape: shape) } }
    }

    /// The item in `slot`, decoded starting from `shape` (the reader's guess of its keys, updated).
    func decode(_ slot: Int32, shape readerShape: inout JSONObjectShape?) -> JSONObject? {
        withPacked(slot) { packed in packed.flatMap { PackedObject.decode($0, shape: shape, readerShape: &readerShape) } }
    }

    /// The values of `fields` in the item in `slot` (null for a missing one), read from its packed form without
    /// building the rest of it; nil for a free slot.
    func values(of slot: Int32, fields: [String]) -> [JSONValue]? {
        withPacked(slot) { packed in packed.flatMap { PackedObject.values(of: fields, in: $0, shape: shape) } }
    }

    /// Calls `body` with the JSON text of the item in `slot`, to be written out (nil for a free slot).
    func withText<T>(of slot: Int32, _ body: (ItemText?) -> T) -> T {
        withPacked(slot) { packed in body(packed.map { ItemText(packed: $0, shape: shape) }) }
    }

    /// A copy of an item's packed form with the shape it was packed with: what taking a batch back restores.
    struct PackedCopy: Sendable {
        let bytes: [UInt8]
        let shape: JSONObjectShape?

        /// The item, decoded; nil when the bytes are not a packed object.
        var item: JSONObject? { bytes.withUnsafeBytes { PackedObject.decode($0, shape: shape) } }
    }

    /// A copy of the packed form of the item in `slot`, or nil for a free slot.
    private func packedCopy(of slot: Int32) -> PackedCopy? {
        withPacked(slot) { packed in packed.map { PackedCopy(bytes: Array($0), shape: shape) } }
    }

    /// Calls `body` with the packed form of the item in `slot` (nil for a free slot).
    func withPacked<T>(_ slot: Int32, _ body: (UnsafeRawBufferPointer?) throws -> T) rethrows -> T {
        let place = slots[Int(slot)]
        guard !place.isFree else { return try body(nil) }
        return try arena.withBytes(at: place.offset, length: Int(place.length), body)
    }

    /// How many slots there are, free or holding an item: every slot number is below it.
    var slotCount: Int { slots.count }

    /// The slots that hold items, in slot order.
    var liveSlots: some Sequence<Int32> {
        slots.indices.lazy.filter { !slots[$0].isFree }.map { Int32($0) }
    }

    /// Every item, decoded, in slot order.
    var items: [JSONObject] { Array(decodedItems) }

    /// Every item, decoded one at a time as the sequence is iterated, in slot order.
    var decodedItems: DecodedItems { DecodedItems(table: self) }

    // MARK: Changes

    /// Stores `item` under `key`, replacing the item held under it. Returns its slot and whether it replaced an
    /// item, the replaced item when `decodingPrevious` (index maintenance needs it), and a copy of the replaced
    /// item's packed form when `copyingPrevious` (taking a batch back needs it).
    /// - Parameter packed: the item's packed form with ``shape``, when the caller has it already.
    @discardableResult
    mutating func upsert(_ item: JSONObject, key: String, packed: UnsafeRawBufferPointer? = nil, decodingPrevious: Bool = false,
                         copyingPrevious: Bool = false) -> (slot: Int32, replaced: Bool, previous: JSONObject?, previousCopy: PackedCopy?) {
        let hash = Self.hash(key)
        let located = locate(key: key, hash: hash, decoding: decodingPrevious)
        return store(item, hash: hash, packed: packed, replacing: located, copyingPrevious: copyingPrevious)
    }

    /// ``upsert(_:key:decodingPrevious:copyingPrevious:)`` of the item whose id is `id`, without building its key
    /// (``ItemID/key(_:)``) unless the id is not printable ASCII: the item held under the key is found by comparing
    /// ids.
    /// - Parameter packed: the item's packed form with ``shape``, when the caller has it already.
    @discardableResult
    mutating func upsert(_ item: JSONObject, id: String, packed: UnsafeRawBufferPointer? = nil, decodingPrevious: Bool = false,
                         copyingPrevious: Bool = false) -> (slot: Int32, replaced: Bool, previous: JSONObject?, previousCopy: PackedCopy?) {
        var utf8 = id
        guard let hash = utf8.withUTF8(Self.hash(ofKeyOf:)) else {
            return upsert(item, key: ItemID.key(id), packed: packed, decodingPrevious: decodingPrevious, copyingPrevious: copyingPrevious)
        }
        let located = locate(id: id, hash: hash, decoding: decodingPrevious)
        return store(item, hash: hash, packed: packed, replacing: located, copyingPrevious: copyingPrevious)
    }

    /// Stores `item`, packed (`packed` when given), under the key whose hash is `hash`: in the slot of the item it
    /// replaces, `located` (found by that key), or in a new one.
    private mutating func store(_ item: JSONObject, hash: UInt32, packed: UnsafeRawBufferPointer? = nil,
                                replacing located: (slot: Int32, item: JSONObject?)?,
                                copyingPrevious: Bool) -> (slot: Int32, replaced: Bool, previous: JSONObject?, previousCopy: PackedCopy?) {
        if shape == nil { shape = JSONObjectShape(of: item) }
        let (start, written) = packed.map { (arena.append($0), $0.count) } ?? arena.append { PackedObject.append(item, shape: shape, to: &$0) }
        let length = UInt32(written)
        defer { reclaimIfWasteful() }
        if let (slot, previous) = located {
            let previousCopy = copyingPrevious ? packedCopy(of: slot) : nil
            release(slot)
            slots[Int(slot)].offset = start
            slots[Int(slot)].length = length
            return (slot, true, previous, previousCopy)
        }
        return (allocate(Slot(offset: start, length: length, hash: hash)), false, nil, nil)
    }

    /// Removes the item under `key`; returns its slot, or nil when there was none, the removed item when
    /// `decoding` (index maintenance needs it), and a copy of its packed form when `copying` (taking a batch back
    /// needs it).
    @discardableResult
    mutating func remove(key: String, decoding: Bool = false, copying: Bool = false) -> (slot: Int32, item: JSONObject?, copy: PackedCopy?)? {
        guard let removed = locate(key: key, hash: Self.hash(key), decoding: decoding) else { return nil }
        let copy = copying ? packedCopy(of: removed.slot) : nil
        buckets.remove(removed.slot, hash: slots[Int(removed.slot)].hash)
        release(removed.slot)
        slots[Int(removed.slot)].offset = -1
        freeSlots.append(removed.slot)
        count -= 1
        reclaimIfWasteful()
        return (removed.slot, removed.item, copy)
    }

    /// Makes room for `count` items in all, so that loading them grows nothing step by step (the arena grows by
    /// chunks, which are never copied).
    mutating func reserveCapacity(_ count: Int) {
        slots.reserveCapacity(count)
        let capacity = buckets.capacity(toHold: count)
        if capacity > buckets.capacity { rehash(capacity: capacity) }
    }

    /// Sets the shape items are packed with, when the table has none yet (an item of other keys is stored as text).
    mutating func adopt(shape newShape: JSONObjectShape?) {
        if shape == nil { shape = newShape }
    }

    /// The slot holding each of `items`' keys now, or -1 for none: the lookups of ``load(packed:key:hash:held:)``,
    /// done for a group of items first so that their buckets' cache misses overlap.
    func slots(holding items: ArraySlice<LoadedItem>) -> [Int32] {
        items.map { item in item.withKeyAndPacked { key, _ in slot(ofKey: String(decoding: key, as: UTF8.self), hash: item.hash) ?? -1 } }
    }

    /// Stores the item whose packed form (with ``shape``) is `packed` under the key whose UTF-8 is `key` and
    /// whose hash is `hash`, as an upsert would: in `held`, the slot that held the key before this run of items
    /// (``slots(holding:)``), or else in the slot of an item stored under the key since, or in a new one.
    /// Returns the slot and whether it replaced an item (whose slot it keeps).
    @discardableResult
    mutating func load(packed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, hash: UInt32, held: Int32?) -> (slot: Int32, replaced: Bool) {
        let start = arena.append(packed)
        defer { reclaimIfWasteful() }
        if let slot = held ?? slot(ofKey: String(decoding: key, as: UTF8.self), hash: hash) {
            release(slot)
            slots[Int(slot)].offset = start
            slots[Int(slot)].length = UInt32(packed.count)
            return (slot, true)
        }
        return (allocate(Slot(offset: start, length: UInt32(packed.count), hash: hash)), false)
    }

    // MARK: Storage

    /// Counts the bytes of `slot`'s current packed form as garbage.
    private mutating func release(_ slot: Int32) {
        arenaGarbage += Int(slots[Int(slot)].length)
    }

    private mutating func allocate(_ place: Slot) -> Int32 {
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            slots[Int(slot)] = place
        } else {
            slot = Int32(slots.count)
            slots.append(place)
        }
        count += 1
        if buckets.needsGrowth(toHold: count) {
            rehash(capacity: max(16, buckets.capacity * 2))
        } else {
            buckets.insert(slot, hash: place.hash)
        }
        return slot
    }

    private mutating func rehash(capacity: Int) {
        buckets.reset(capacity: capacity)
        for slot in slots.indices where !slots[slot].isFree { buckets.insert(Int32(slot), hash: slots[slot].hash) }
    }

    /// Copies the live items out of a buffer that is mostly garbage.
    private mutating func reclaimIfWasteful() {
        guard arenaGarbage > 1 << 20 && arenaGarbage * 2 > arena.byteCount else { return }
        var fresh = ItemArena()
        for index in slots.indices where !slots[index].isFree {
            guard let start = withPacked(Int32(index), { $0.map { fresh.append($0) } }) else { continue }
            slots[index].offset = start
        }
        arena = fresh
        arenaGarbage = 0
    }
}
