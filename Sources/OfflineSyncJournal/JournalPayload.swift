import OfflineSyncCore
import OfflineSyncStore
/// The JSON form of a batch in an `apply` record (`"p"`): an array of changes, each one of
/// `{"upsert":"<table>","items":[…]}`, `{"delete":"<table>","ids":[…]}` or `{"clear":"<table>"}`.
///
/// A `deleteAll` with a filter is written as the `delete` of the ids it matched when it was applied, so that a
/// reader replays the journal without evaluating filters.
enum JournalPayload {
    /// A generous estimate of the payload's size, to reserve the buffer once instead of growing it.
    static func estimatedBytes(of changes: [StoreChange]) -> Int {
        changes.reduce(16) { total, change in
            switch change {
            case .upsert(_, let items): return total + 64 + items.count * 256
            case .delete(_, let ids): return total + 64 + ids.count * 64
            case .deleteAll: return total + 64
            }
        }
    }

    /// Appends `elements` as a JSON array, each written by `write`.
    private static func appendList<Element, Failure: Error>(_ elements: [Element], into buffer: inout [UInt8],
                                                            _ write: (Element, inout [UInt8]) throws(Failure) -> Void) throws(Failure) {
        buffer.append(UInt8(ascii: "["))
        for (position, element) in elements.enumerated() {
            if position > 0 { buffer.append(UInt8(ascii: ",")) }
            try write(element, &buffer)
        }
        buffer.append(UInt8(ascii: "]"))
    }

    /// Appends the payload for `changes`, which hold no filtered `deleteAll`.
    /// - Throws: ``DataSourceError`` as ``StoreChange/validate(_:)`` does, with `buffer` then holding part of it.
    static func write(_ changes: [StoreChange], into buffer: inout [UInt8]) throws(DataSourceError) {
        var packed = PackedItems()
        try write(changes, into: &buffer, shapes: { _ in nil }, packing: &packed)
    }

    /// Appends the payload for `changes`, which hold no filtered `deleteAll`, and packs each upserted item whose keys
    /// are those of its table's shape (`shapes`) into `packed`, in the batch's order: its text in the payload is
    /// written from the packed form, and the tables keep that form instead of packing the item again. Checks the
    /// batch while writing it, so that it needs no walk of its own.
    /// `prepared` holds, by the change's position, upserts whose items were already checked, packed and written
    /// (``PreparedUpserts``): their text is copied in.
    /// - Throws: ``DataSourceError`` as ``StoreChange/validate(_:)`` does (the same first problem), with `buffer`
    ///   then holding part of the payload.
    static func write(_ changes: [StoreChange], into buffer: inout [UInt8], shapes: (String) -> JSONObjectShape?,
                      prepared: [Int: PreparedUpserts.EncodedItems] = [:], packing packed: inout PackedItems) throws(DataSourceError) {
        let writer = JSONWriter()
        buffer.append(UInt8(ascii: "["))
        for (index, change) in changes.enumerated() {
            try StoreChange.validateTable(change.table)
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            switch change {
            case .upsert(let table, let upserted):
                buffer.append(contentsOf: #"{"upsert":"#.utf8)
                writer.writeString(table, into: &buffer)
                buffer.append(contentsOf: #","items":"#.utf8)
                buffer.append(UInt8(ascii: "["))
                if let encoded = prepared[index] {
                    buffer.append(contentsOf: encoded.text)
                    packed.append(encoded.packed)
                } else {
                    try StorableItemWriter().writeItems(upserted[...], table: table, shape: shapes(table), into: &buffer,
                                                        packing: &packed)
                }
                buffer.append(contentsOf: "]}".utf8)
            case .delete(let table, let ids):
                buffer.append(contentsOf: #"{"delete":"#.utf8)
                writer.writeString(table, into: &buffer)
                buffer.append(contentsOf: #","ids":"#.utf8)
                try appendList(ids, into: &buffer) { (id, buffer) throws(DataSourceError) in
                    if let reason = ItemID.violation(in: id) { throw DataSourceError.invalidID(table: table, id: id, reason: reason) }
                    writer.writeString(id, into: &buffer)
                }
                buffer.append(UInt8(ascii: "}"))
            case .deleteAll(let table, _):
                buffer.append(contentsOf: #"{"clear":"#.utf8)
                writer.writeString(table, into: &buffer)
                buffer.append(UInt8(ascii: "}"))
            }
        }
        buffer.append(UInt8(ascii: "]"))
    }

    /// The changes a payload holds, or nil when it does not have the documented shape.
    static func changes(from payload: JSONValue) -> [StoreChange]? {
        guard case .array(let entries) = payload else { return nil }
        var changes: [StoreChange] = []
        changes.reserveCapacity(entries.count)
        for entry in entries {
            guard case .object(let object) = entry else { return nil }
            if case .string(let table)? = object["upsert"], case .array(let values)? = object["items"] {
                var items: [JSONObject] = []
                items.reserveCapacity(values.count)
                for value in values {
                    guard case .object(let item) = value else { return nil }
                    items.append(item)
                }
                changes.append(.upsert(table: table, items: items))
            } else if case .string(let table)? = object["delete"], case .array(let values)? = object["ids"] {
                var ids: [String] = []
                for value in values {
                    guard case .string(let id) = value else { return nil }
                    ids.append(id)
                }
                changes.append(.delete(table: table, ids: ids))
            } else if case .string(let table)? = object["clear"] {
                changes.append(.deleteAll(table: table, matching: nil))
            } else {
                return nil
            }
        }
        return changes
    }
}
