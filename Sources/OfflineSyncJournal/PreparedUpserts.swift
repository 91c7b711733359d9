import OfflineSyncCore
import OfflineSyncStore

/// A batch's large upserts, encoded and their index entries built on two cores before its commit touches the store:
/// the items checked, packed and written as JSON, and the entries they add to their tables' indexes
/// (``AddedIndexEntries``), so that a batch of thousands of items is encoded on two cores and its apply only merges.
///
/// ``prepare(_:)`` runs away from the store's actor, which serves other calls meanwhile; nothing it computes has
/// changed the store, and the commit uses it only where it still holds (the same shapes and indexes), so suspending
/// there is safe. An upsert whose items hold a problem is left out: the commit's own encoding reports the batch's
/// first problem, as one pass over it would.
struct PreparedUpserts: Sendable {
    /// Upserts of at least this many items are encoded on two cores; below it, handing the work over costs more than
    /// it saves (an upsert into a table with indexes is prepared from ``AddedIndexEntries/minimumItems`` on).
    static let minimumItems = 512

    /// One upsert to prepare.
    struct Upsert: Sendable {
        /// The change's position in the batch.
        var position: Int
        var table: String
        var items: [JSONObject]
        /// The shape its items are packed with (the table's, before the batch).
        var shape: JSONObjectShape?
        /// The fields of each index of the table, when the upsert's entries are built aside.
        var indexFields: [[String]]?
    }

    /// Items' JSON texts, separated by commas, and their packed forms in order.
    struct EncodedItems: Sendable {
        var text: [UInt8] = []
        var packed = PackedItems()
    }

    /// By the change's position: the upsert's items, encoded whole.
    var encoded: [Int: EncodedItems] = [:]
    /// By the change's position: the entries the upsert adds to its table's indexes.
    var entries: [Int: AddedIndexEntries] = [:]
    /// By table: the shape the items of its prepared upserts were packed with.
    var shapes: [String: JSONObjectShape?] = [:]

    /// The large upserts of `changes` (which hold no filtered `deleteAll`), with the shape of each table from
    /// `shapes` and the indexes whose entries are built aside from `indexFields` (``TableSet/indexFieldsAside(for:)``).
    static func upserts(of changes: [StoreChange], shapes: (String) -> JSONObjectShape?,
                        indexFields: [Int: [[String]]]) -> [Upsert] {
        changes.enumerated().compactMap { position, change in
            guard case .upsert(let table, let items) = change,
                  items.count >= minimumItems || indexFields[position] != nil else { return nil }
            return Upsert(position: position, table: table, items: items, shape: shapes(table),
                          indexFields: indexFields[position])
        }
    }

    /// Where an upsert of `count` items on a table keeping `indexes` indexes splits: the items before it are encoded
    /// on one core, those from it on on the other, after the upsert's index entries (`count` itself when the upsert
    /// is too small to split). The second part shrinks as the entries grow: each index costs about two fifths of what
    /// encoding the items does, and the split evens out the two cores.
    static func split(_ count: Int, indexes: Int) -> Int {
        guard count >= minimumItems else { return count }
        return count * min(5 + 2 * indexes, 9) / 10
    }

    /// Prepares `upserts`: the first part of each on the calling task, the index entries and then the second parts
    /// in a child task meanwhile.
    @concurrent static func prepare(_ upserts: [Upsert]) async -> PreparedUpserts {
        let splits = upserts.map { split($0.items.count, indexes: $0.indexFields?.count ?? 0) }
        async let aside = prepareAside(upserts, splits: splits)
        var first: [Result<EncodedItems, DataSourceError>] = []
        for (upsert, split) in zip(upserts, splits) { first.append(encode(upsert.items[..<split], of: upsert)) }
        let (entries, second) = await aside
        var prepared = PreparedUpserts(entries: entries)
        for (position, upsert) in upserts.enumerated() {
            prepared.shapes[upsert.table] = upsert.shape
            guard case .success(var items) = first[position], case .success(let rest) = second[position] else { continue }
            if !items.text.isEmpty, !rest.text.isEmpty { items.text.append(UInt8(ascii: ",")) }
            items.text.append(contentsOf: rest.text)
            items.packed.append(rest.packed)
            prepared.encoded[upsert.position] = items
        }
        return prepared
    }

    /// The index entries of `upserts` (by position in the batch), then the parts of their items from `splits` on
    /// (one per upsert, in order).
    private static func prepareAside(_ upserts: [Upsert], splits: [Int])
        -> ([Int: AddedIndexEntries], [Result<EncodedItems, DataSourceError>]) {
        var entries: [Int: AddedIndexEntries] = [:]
        for upsert in upserts {
            if let fields = upsert.indexFields { entries[upsert.position] = AddedIndexEntries(items: upsert.items, fields: fields) }
        }
        let second = zip(upserts, splits).map { upsert, split in encode(upsert.items[split...], of: upsert) }
        return (entries, second)
    }

    private static func encode(_ items: ArraySlice<JSONObject>, of upsert: Upsert) -> Result<EncodedItems, DataSourceError> {
        var encoded = EncodedItems()
        encoded.text.reserveCapacity(items.count * 256)
        do throws(DataSourceError) {
            try StorableItemWriter().writeItems(items, table: upsert.table, shape: upsert.shape, into: &encoded.text,
                                                packing: &encoded.packed)
        } catch {
            return .failure(error)
        }
        return .success(encoded)
    }

    /// Leaves the encodings out when a table's shape is no longer the one they were packed with (`current`): the
    /// store changed while they were prepared. The index entries check their indexes when they are applied.
    mutating func dropStaleEncodings(current: (String) -> JSONObjectShape?) {
        if shapes.contains(where: { table, shape in current(table) !== shape }) { encoded = [:] }
    }
}
