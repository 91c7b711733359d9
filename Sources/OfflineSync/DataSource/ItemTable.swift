/// The items of one table, held compactly: each item as its JSON text in the base buffer or the arena, found by key
/// through an open-addressing hash table of slot numbers. An item is decoded when it is read.
///
/// An item costs its JSON text (about 175 bytes for a six-field record) plus 16 bytes of slot and 11 to 21 bytes
/// of hash table, against roughly 1 KiB as a `JSONObject`. The `base` buffer is a snapshot file's bytes, shared by
/// every table loaded from it and never written; items written later go to `arena`. Replaced and deleted items
/// leave garbage behind, which is reclaimed once it outweighs the live items.
struct ItemTable: Sendable {
    /// Where an item's JSON text lies.
    struct Slot: Sendable {
        /// Offset in `base` (when ``inBase``) or location in `arena` (``ItemArena``); -1 for a free slot.
        var offset: Int
        var length: UInt32
        /// The low bits of the hash of the item's key, checked before a key is compared.
        var hash: UInt32
        var isFree: Bool { offset < 0 }
    }

    private var base: [UInt8] = []
    private var arena = ItemArena()
    private var slots: [Slot] = []
    /// Whether slot i lies in `base`, one bit per slot.
    private var inBase: [UInt64] = []
    private var freeSlots: [Int32] = []
    /// The slots by their keys' hashes.
    private var buckets = SlotBuckets()
    private(set) var count = 0
    private var arenaGarbage = 0
    private var baseLive = 0
    /// The keys of the first item stored, so that an item with the same keys is decoded as a copy of a prototype
    /// instead of a dictionary built by hashing each key (``JSONObjectShape``).
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

    /// The slot of the item whose key is `key`, or nil, found without decoding the item: only its id is read.
    private func slot(of key: String, hash: UInt32) -> Int32? {
        buckets.probe(hash: hash) { storedKey(of: $0) == key }
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
            guard let stored = storedID(of: slot) else { return false }
            return ItemID.haveSameKey(stored, id)
        }
        return slot.map { ($0, found) }
    }

    /// The slot of the item whose key is `key`, with the item itself when `decoding`, or nil.
    private func locate(key: String, hash: UInt32, decoding: Bool) -> (slot: Int32, item: JSONObject?)? {
        decoding ? find(key: key, hash: hash).map { ($0.slot, $0.item) } : slot(of: key, hash: hash).map { ($0, nil) }
    }

    /// The key of the item in `slot`, read from its text without building the other members.
    private func storedKey(of slot: Int32) -> String? {
        storedID(of: slot).map(ItemID.key)
    }

    /// The id of the item in `slot`, read from its text without building the other members.
    private func storedID(of slot: Int32) -> String? {
        withBytes(of: slot) { bytes in
            guard let text = bytes?.assumingMemoryBound(to: UInt8.self),
                  case .success(let ranges) = JSONReader.skimObject(text, keys: ["id"]), let range = ranges[0],
                  case .success(.string(let id)) = JSONReader.result(UnsafeBufferPointer(rebasing: text[range])) else {
                return nil
            }
            return id
        }
    }

    /// The item in `slot`, decoded; nil for a free slot.
    func decode(_ slot: Int32) -> JSONObject? {
        withBytes(of: slot) { bytes in
            guard let bytes, case .success(.object(let item)) = JSONReader.result(bytes.assumingMemoryBound(to: UInt8.self), knownShape: shape) else {
                return nil
            }
            return item
        }
    }

    /// The item in `slot`, decoded starting from `shape` (the reader's guess of its keys, updated).
    func decode(_ slot: Int32, shape: inout JSONObjectShape?) -> JSONObject? {
        withBytes(of: slot) { bytes in
            guard let bytes, case .success(.object(let item)) = JSONReader.result(bytes.assumingMemoryBound(to: UInt8.self), shape: &shape) else {
                return nil
            }
            return item
        }
    }

    /// The values of `fields` in the item in `slot` (null for a missing one), read from its text without building
    /// the rest of it; nil for a free slot.
    func values(of slot: Int32, fields: [String]) -> [JSONValue]? {
        withBytes(of: slot) { raw in
            guard let raw else { return nil }
            let bytes = raw.assumingMemoryBound(to: UInt8.self)
            guard case .success(let ranges) = JSONReader.skimObject(bytes, keys: fields) else { return nil }
            return ranges.map { range in
                guard let range, case .success(let value) = JSONReader.result(UnsafeBufferPointer(rebasing: bytes[range])) else {
                    return .null
                }
                return value
            }
        }
    }

    /// Calls `body` with the JSON text of the item in `slot` (nil for a free slot).
    func withBytes<T>(of slot: Int32, _ body: (UnsafeRawBufferPointer?) -> T) -> T {
        let place = slots[Int(slot)]
        guard !place.isFree else { return body(nil) }
        if isInBase(slot) {
            return base.withUnsafeBytes { raw in
                body(UnsafeRawBufferPointer(rebasing: raw[place.offset..<(place.offset + Int(place.length))]))
            }
        }
        return arena.withBytes(at: place.offset, length: Int(place.length), body)
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
    /// item's text when `copyingPrevious` (taking a batch back needs it).
    /// - Parameter text: the item's JSON text as `JSONWriter` writes it, when the caller has it already.
    @discardableResult
    mutating func upsert(_ item: JSONObject, key: String, text: UnsafeRawBufferPointer? = nil, decodingPrevious: Bool = false,
                         copyingPrevious: Bool = false) -> (slot: Int32, replaced: Bool, previous: JSONObject?, previousText: [UInt8]?) {
        let hash = Self.hash(key)
        let located = locate(key: key, hash: hash, decoding: decodingPrevious)
        return store(item, hash: hash, text: text, replacing: located, copyingPrevious: copyingPrevious)
    }

    /// ``upsert(_:key:text:decodingPrevious:copyingPrevious:)`` of the item whose id is `id`, without building its
    /// key (``ItemID/key(_:)``) unless the id is not printable ASCII: the item held under the key is found by
    /// comparing ids.
    @discardableResult
    mutating func upsert(_ item: JSONObject, id: String, text: UnsafeRawBufferPointer? = nil, decodingPrevious: Bool = false,
                         copyingPrevious: Bool = false) -> (slot: Int32, replaced: Bool, previous: JSONObject?, previousText: [UInt8]?) {
        var utf8 = id
        guard let hash = utf8.withUTF8(Self.hash(ofKeyOf:)) else {
            return upsert(item, key: ItemID.key(id), text: text, decodingPrevious: decodingPrevious, copyingPrevious: copyingPrevious)
        }
        let located = locate(id: id, hash: hash, decoding: decodingPrevious)
        return store(item, hash: hash, text: text, replacing: located, copyingPrevious: copyingPrevious)
    }

    /// Stores `item` (its `text` when given) under the key whose hash is `hash`: in the slot of the item it
    /// replaces, `located` (found by that key), or in a new one.
    private mutating func store(_ item: JSONObject, hash: UInt32, text: UnsafeRawBufferPointer?,
                                replacing located: (slot: Int32, item: JSONObject?)?, copyingPrevious: Bool)
        -> (slot: Int32, replaced: Bool, previous: JSONObject?, previousText: [UInt8]?) {
        if shape == nil { shape = JSONObjectShape(of: item) }
        let (start, written) = text.map { (arena.append($0), $0.count) } ?? arena.append { JSONWriter().write(item, into: &$0) }
        let length = UInt32(written)
        defer { reclaimIfWasteful() }
        if let (slot, previous) = located {
            let previousText = copyingPrevious ? withBytes(of: slot) { $0.map { [UInt8]($0) } } : nil
            release(slot)
            slots[Int(slot)].offset = start
            slots[Int(slot)].length = length
            return (slot, true, previous, previousText)
        }
        return (allocate(Slot(offset: start, length: length, hash: hash), inBase: false), false, nil, nil)
    }

    /// Removes the item under `key`; returns its slot, or nil when there was none, the removed item when
    /// `decoding` (index maintenance needs it), and a copy of its text when `copying` (taking a batch back needs it).
    @discardableResult
    mutating func remove(key: String, decoding: Bool = false, copying: Bool = false) -> (slot: Int32, item: JSONObject?, text: [UInt8]?)? {
        guard let removed = locate(key: key, hash: Self.hash(key), decoding: decoding) else { return nil }
        let text = copying ? withBytes(of: removed.slot) { $0.map { [UInt8]($0) } } : nil
        buckets.remove(removed.slot, hash: slots[Int(removed.slot)].hash)
        release(removed.slot)
        slots[Int(removed.slot)].offset = -1
        freeSlots.append(removed.slot)
        count -= 1
        reclaimIfWasteful()
        return (removed.slot, removed.item, text)
    }

    /// Makes room for `count` items in all, so that loading them grows nothing step by step.
    mutating func reserveCapacity(_ count: Int) {
        slots.reserveCapacity(count)
        inBase.reserveCapacity(count / 64 + 1)
        let capacity = buckets.capacity(toHold: count)
        if capacity > buckets.capacity { rehash(capacity: capacity) }
    }

    /// Whether no item was ever stored (a base buffer can be adopted).
    var hasNoSlots: Bool { slots.isEmpty }

    /// Whether `bytes` is this table's base buffer (the same storage, not merely equal bytes).
    func shares(base bytes: [UInt8]) -> Bool {
        base.withUnsafeBytes { own in bytes.withUnsafeBytes { own.baseAddress == $0.baseAddress && own.count == $0.count } }
    }

    /// Makes `bytes` the shared buffer that ``load(_:key:)`` refers into. Only a table with no slots takes one.
    mutating func adopt(base bytes: [UInt8]) {
        guard slots.isEmpty else { return }
        base = bytes
    }

    /// Stores the item whose JSON text is `range` of the base buffer under `key`, as an upsert would. Returns
    /// the slot and whether it replaced an item (whose slot it keeps).
    @discardableResult
    mutating func load(_ range: Range<Int>, key: String) -> (slot: Int32, replaced: Bool) {
        let hash = Self.hash(key)
        if let slot = slot(of: key, hash: hash) {
            release(slot)
            slots[Int(slot)].offset = range.lowerBound
            slots[Int(slot)].length = UInt32(range.count)
            setInBase(slot, true)
            baseLive += range.count
            return (slot, true)
        }
        let slot = allocate(Slot(offset: range.lowerBound, length: UInt32(range.count), hash: hash), inBase: true)
        baseLive += range.count
        if shape == nil { learnShape(from: slot) }
        return (slot, false)
    }

    /// Learns ``shape`` from the item in `slot`.
    private mutating func learnShape(from slot: Int32) {
        var learned: JSONObjectShape?
        _ = withBytes(of: slot) { bytes in
            bytes.map { JSONReader.result($0.assumingMemoryBound(to: UInt8.self), shape: &learned) }
        }
        shape = learned
    }

    // MARK: Storage

    private func isInBase(_ slot: Int32) -> Bool {
        let index = Int(slot)
        return index / 64 < inBase.count && inBase[index / 64] & (1 << UInt64(index % 64)) != 0
    }

    private mutating func setInBase(_ slot: Int32, _ flag: Bool) {
        let index = Int(slot)
        while inBase.count <= index / 64 { inBase.append(0) }
        if flag { inBase[index / 64] |= 1 << UInt64(index % 64) } else { inBase[index / 64] &= ~(1 << UInt64(index % 64)) }
    }

    /// Counts the bytes of `slot`'s current text as garbage.
    private mutating func release(_ slot: Int32) {
        let length = Int(slots[Int(slot)].length)
        if isInBase(slot) {
            baseLive -= length
            setInBase(slot, false)
        } else {
            arenaGarbage += length
        }
    }

    private mutating func allocate(_ place: Slot, inBase flag: Bool) -> Int32 {
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            slots[Int(slot)] = place
        } else {
            slot = Int32(slots.count)
            slots.append(place)
        }
        setInBase(slot, flag)
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

    /// Copies the live items out of a buffer that is mostly garbage (and drops a base buffer no item uses).
    private mutating func reclaimIfWasteful() {
        if baseLive == 0 && !base.isEmpty { base = [] }
        let baseWasteful = baseLive > 0 && base.count > 1 << 20 && baseLive * 2 < base.count
        let arenaWasteful = arenaGarbage > 1 << 20 && arenaGarbage * 2 > arena.byteCount
        guard baseWasteful || arenaWasteful else { return }
        var fresh = ItemArena()
        for index in slots.indices where !slots[index].isFree {
            let slot = Int32(index)
            let fromBase = isInBase(slot)
            guard !fromBase || baseWasteful else { continue }
            guard let start = withBytes(of: slot, { $0.map { fresh.append($0) } }) else { continue }
            slots[index].offset = start
            if fromBase { setInBase(slot, false) }
        }
        arena = fresh
        arenaGarbage = 0
        if baseWasteful {
            base = []
            baseLive = 0
        }
    }
}
