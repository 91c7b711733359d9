package import OfflineSyncCore
/// One item of a snapshot, parsed while opening: its key (``ItemID/key(_:)`` of its id) and the key's hash
/// (``ItemTable/hash(_:)``), its packed form (``PackedObject``, with its table's shape), and the ``OrderedKey``
/// encoding of each of its table's indexed value lists, in declaration order; all in one buffer, so that parsing a
/// line allocates once, and the hash computed where lines are parsed in parallel.
package struct LoadedItem: Sendable {
    /// The key's UTF-8, the packed form, then each index's values as a varint length and the bytes.
    private var bytes: [UInt8]
    private var keyLength: Int32
    private var packedLength: Int32
    /// ``ItemTable/hash(_:)`` of the key.
    let hash: UInt32

    init(packed: some Collection<UInt8>, key: String, indexValues: [[UInt8]]) {
        let keyBytes = key.utf8
        var bytes: [UInt8] = []
        bytes.reserveCapacity(keyBytes.count + packed.count + indexValues.reduce(0) { $0 + $1.count + 2 })
        bytes.append(contentsOf: keyBytes)
        bytes.append(contentsOf: packed)
        for values in indexValues { Self.appendIndexValues(values, to: &bytes) }
        self.init(bytes: bytes, keyLength: keyBytes.count, packedLength: packed.count)
    }

    /// Appends one index's encoded values to the `bytes` of an item being built, after its key and packed form and
    /// the values of the indexes before (``init(bytes:keyLength:packedLength:)``).
    package static func appendIndexValues(_ values: [UInt8], to bytes: inout [UInt8]) {
        PackedValue.appendVarint(UInt64(values.count), to: &bytes)
        bytes.append(contentsOf: values)
    }

    /// An item whose `bytes` hold its key's UTF-8 (`keyLength` bytes), its packed form (`packedLength` bytes), then
    /// each index's values as a varint length and the bytes.
    package init(bytes: [UInt8], keyLength: Int, packedLength: Int) {
        self.bytes = bytes
        self.keyLength = Int32(keyLength)
        self.packedLength = Int32(packedLength)
        hash = bytes.withUnsafeBytes { ItemTable.hash(UnsafeRawBufferPointer(rebasing: $0[0..<keyLength])) }
    }

    /// Calls `body` with the key's UTF-8 and the packed form.
    func withKeyAndPacked<T>(_ body: (_ key: UnsafeRawBufferPointer, _ packed: UnsafeRawBufferPointer) -> T) -> T {
        bytes.withUnsafeBytes { raw in
            body(UnsafeRawBufferPointer(rebasing: raw[0..<Int(keyLength)]),
                 UnsafeRawBufferPointer(rebasing: raw[Int(keyLength)..<Int(keyLength + packedLength)]))
        }
    }

    /// Calls `body` with each index's encoded values, in declaration order.
    func forEachIndexValues(_ body: (Int, UnsafeRawBufferPointer) -> Void) {
        bytes.withUnsafeBytes { raw in
            var offset = Int(keyLength + packedLength), position = 0
            while offset < raw.count, let length = PackedValue.readVarint(raw, at: &offset) {
                body(position, UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + Int(length))]))
                offset += Int(length)
                position += 1
            }
        }
    }
}

extension TableSet {
    /// The fields of each index of `table`, in declaration order.
    package func indexFields(table: String) -> [[String]] {
        indexes[table]?.map(\.definition.fields) ?? []
    }

    /// The encodings of `item`'s values for each field list of `indexFields`, as ``LoadedItem`` holds them.
    static func indexValues(of item: JSONObject, _ indexFields: [[String]]) -> [[UInt8]] {
        indexFields.map { fields in
            var bytes: [UInt8] = []
            for field in fields { OrderedKey.append(item[field] ?? .null, to: &bytes) }
            return bytes
        }
    }

    /// The shape `table` packs its items with, if it has one.
    package func shape(table name: String) -> JSONObjectShape? {
        tables[name]?.shape
    }

    /// Gives `table`, when it has no shape yet, the shape of the object on `line` (an item line of a snapshot,
    /// with or without its trailing comma), so that the items loaded next are packed with it.
    package mutating func adoptShape(table name: String, learnedFrom line: UnsafeRawBufferPointer) {
        var table = tables.removeValue(forKey: name) ?? ItemTable()
        defer { tables[name] = table }
        guard table.shape == nil else { return }
        var learned: JSONObjectShape?
        let end = line.last == UInt8(ascii: ",") ? line.count - 1 : line.count
        _ = JSONReader.result(UnsafeRawBufferPointer(rebasing: line[0..<end]).assumingMemoryBound(to: UInt8.self), shape: &learned)
        table.adopt(shape: learned)
    }

    /// Makes room in `table` and its indexes for `count` more items, each indexed in about the size of the first
    /// item's (`sample`).
    package mutating func reserve(table name: String, items count: Int, sample: LoadedItem?) {
        var table = tables.removeValue(forKey: name) ?? ItemTable()
        var sizes: [Int] = []
        sample?.forEachIndexValues { _, values in sizes.append(values.count) }
        table.reserveCapacity(table.count + count)
        tables[name] = table
        guard var list = indexes.removeValue(forKey: name) else { return }
        for position in list.indices {
            let size = (sizes.dropFirst(position).first ?? 16) + 4
            list[position].reserveCapacity(count, entryBytes: size + size / 8)
        }
        indexes[name] = list
    }

    /// Upserts the packed `items` into `table` (packed with its shape): the same result as ``apply(_:)`` with one
    /// `upsert` of the items, in order. Several calls may load one table; ``finishLoading(table:replacedAny:)``
    /// must follow the last. Returns whether an item replaced one loaded before (a repeated id).
    package mutating func load(_ items: [LoadedItem], table name: String) -> Bool {
        var table = tables.removeValue(forKey: name) ?? ItemTable()
        var list = indexes.removeValue(forKey: name) ?? []
        defer {
            tables[name] = table
            if !list.isEmpty { indexes[name] = list }
        }
        var replacedAny = false
        // Looking up the keys of a few hundred items first fetches their hash buckets from memory side by side, not
        // one after another; few enough that the buckets are still in the cache when the items are stored.
        for start in stride(from: 0, to: items.count, by: 256) {
            let group = items[start..<min(start + 256, items.count)]
            for (item, held) in zip(group, table.slots(holding: group)) {
                let (slot, replaced) = item.withKeyAndPacked { key, packed in
                    table.load(packed: packed, key: key, hash: item.hash, held: held < 0 ? nil : held)
                }
                replacedAny = replacedAny || replaced
                item.forEachIndexValues { position, values in
                    if position < list.count { list[position].appendUnsorted(values: values, slot: slot) }
                }
            }
        }
        return replacedAny
    }

    /// Puts the indexes of a table loaded by ``load(_:table:)`` in order, or rebuilds them when an item
    /// replaced another (its first version's entry is stale).
    package mutating func finishLoading(table name: String, replacedAny: Bool) {
        guard var list = indexes.removeValue(forKey: name) else { return }
        for position in list.indices {
            if replacedAny {
                list[position] = Self.build(list[position].definition, over: tables[name])
            } else {
                list[position].sort()
            }
        }
        indexes[name] = list
    }
}
