/// One item of a snapshot, parsed while opening: where its JSON text lies in the snapshot's bytes, its key
/// (``ItemID/key(_:)`` of its id), and the ``OrderedKey`` encoding of each of its table's indexed value lists, in
/// declaration order.
struct LoadedItem: Sendable {
    var range: Range<Int>
    var key: String
    var indexValues: [[UInt8]]
}

extension TableSet {
    /// The fields of each index of `table`, in declaration order.
    func indexFields(table: String) -> [[String]] {
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

    /// Makes room in `table` and its indexes for `count` more items, each index entry of about the size of the
    /// first item's (`sample`).
    mutating func reserve(table name: String, items count: Int, sample: LoadedItem?) {
        var table = tables.removeValue(forKey: name) ?? ItemTable()
        table.reserveCapacity(table.count + count)
        tables[name] = table
        guard var list = indexes.removeValue(forKey: name) else { return }
        for position in list.indices {
            let size = (sample?.indexValues.dropFirst(position).first?.count ?? 16) + 4
            list[position].reserveCapacity(count, entryBytes: size + size / 8)
        }
        indexes[name] = list
    }

    /// Upserts into `table` the items whose JSON text lies in `base` (a snapshot's bytes, which the table then
    /// shares instead of copying them): the same result as ``apply(_:)`` with one `upsert` of the items, in order.
    /// Several calls may load one table from the same `base`; ``finishLoading(table:replacedAny:)`` must follow
    /// the last. Returns whether an item replaced one loaded before (a repeated id).
    mutating func load(_ items: [LoadedItem], table name: String, base: [UInt8]) -> Bool {
        var table = tables.removeValue(forKey: name) ?? ItemTable()
        var list = indexes.removeValue(forKey: name) ?? []
        defer {
            tables[name] = table
            if !list.isEmpty { indexes[name] = list }
        }
        if table.hasNoSlots { table.adopt(base: base) }
        let shared = table.shares(base: base)
        var replacedAny = false
        for item in items {
            let (slot, replaced): (Int32, Bool)
            if shared {
                (slot, replaced) = table.load(item.range, key: item.key)
            } else {
                // The table holds other items already: store a copy of the text instead.
                let decoded = base.withUnsafeBufferPointer { JSONReader.result(UnsafeBufferPointer(rebasing: $0[item.range])) }
                guard case .success(.object(let object)) = decoded else { continue }
                let upserted = table.upsert(object, key: item.key)
                (slot, replaced) = (upserted.slot, upserted.replaced)
            }
            replacedAny = replacedAny || replaced
            for position in list.indices where position < item.indexValues.count {
                list[position].appendUnsorted(values: item.indexValues[position], slot: slot)
            }
        }
        return replacedAny
    }

    /// Puts the indexes of a table loaded by ``load(_:table:base:)`` in order, or rebuilds them when an item
    /// replaced another (its first version's entry is stale).
    mutating func finishLoading(table name: String, replacedAny: Bool) {
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
