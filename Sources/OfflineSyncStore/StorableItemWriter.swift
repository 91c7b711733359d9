package import OfflineSyncCore
/// Writes items as ``JSONWriter`` does while checking them as ``StoreChange/validate(_:)`` does, in the same order
/// and with the same errors, so that a store that writes every item of a batch anyway (the journal) does not walk
/// each item a second time to check it.
package struct StorableItemWriter {
    private let writer = JSONWriter()

    /// A writer with the checks of ``StoreChange/validate(_:)``.
    package init() {}

    /// Appends the JSON text of `item`, bound for `table`; throws the error ``StoreChange/validate(_:)`` throws for
    /// it, with `buffer` then holding part of the item.
    func write(_ item: JSONObject, table: String, into buffer: inout [UInt8]) throws(DataSourceError) {
        let id = try StoreChange.validID(of: item, table: table)
        if let problem = write(item, depth: 1, into: &buffer) {
            throw DataSourceError.invalidItem(table: table, reason: "item \(id) \(problem)")
        }
    }

    /// Appends the JSON text of `item`, bound for `table`, as ``write(_:table:into:)`` does (with the same checks and
    /// errors), and its packed form with `shape` to `packing` when its keys are exactly the shape's: the text is then
    /// written from the packed form (its keys in the shape's order), so the item is walked once for both. Returns
    /// false, appending nothing, when its keys are not the shape's or it holds a value that cannot be stored:
    /// ``write(_:table:into:)`` then writes it, or throws the error that names the problem.
    /// - Throws: ``DataSourceError`` for an invalid id.
    func writePacked(_ item: JSONObject, table: String, shape: JSONObjectShape, into buffer: inout [UInt8],
                     packing packed: inout [UInt8]) throws(DataSourceError) -> Bool {
        _ = try StoreChange.validID(of: item, table: table)
        let start = packed.count
        // A member's value sits at nesting level 2, as ``write(_:depth:into:)`` counts it.
        guard PackedObject.appendShaped(item, shape: shape, to: &packed, accepting: { StoreChange.storageProblem(in: $0, depth: 2) == nil })
        else { return false }
        return packed.withUnsafeBytes { raw in
            PackedObject.appendJSON(UnsafeRawBufferPointer(rebasing: raw[start...]), shape: shape, to: &buffer)
        }
    }

    /// Appends the JSON texts of `upserted`, bound for `table` and separated by commas, checking each as
    /// ``StoreChange/validate(_:)`` does, and packs each whose keys are those of `shape` into `packed`, in order.
    /// - Throws: ``DataSourceError`` for the first item that cannot be stored, with `buffer` then holding part of
    ///   the items.
    package func writeItems(_ upserted: ArraySlice<JSONObject>, table: String, shape: JSONObjectShape?, into buffer: inout [UInt8],
                            packing packed: inout PackedItems) throws(DataSourceError) {
        packed.items.reserveCapacity(packed.items.count + upserted.count)
        for (position, item) in zip(upserted.indices, upserted) {
            if position > upserted.startIndex { buffer.append(UInt8(ascii: ",")) }
            let start = packed.bytes.count
            if let shape, try writePacked(item, table: table, shape: shape, into: &buffer, packing: &packed.bytes) {
                packed.items.append((start..<packed.bytes.count, shape))
            } else {
                packed.bytes.removeSubrange(start...)
                packed.items.append(nil)
                try write(item, table: table, into: &buffer)
            }
        }
    }

    /// Appends `object`, a container at nesting level `depth`; returns why it cannot be stored, at its first
    /// problem in the order the validation walks it.
    private func write(_ object: JSONObject, depth: Int, into buffer: inout [UInt8]) -> String? {
        if depth > StoreChange.maximumItemDepth { return StoreChange.depthProblem }
        buffer.append(UInt8(ascii: "{"))
        var first = true
        for (key, value) in object {
            if !first { buffer.append(UInt8(ascii: ",")) }
            first = false
            writer.writeString(key, into: &buffer)
            buffer.append(UInt8(ascii: ":"))
            if let problem = write(value, depth: depth + 1, into: &buffer) { return problem }
        }
        buffer.append(UInt8(ascii: "}"))
        return nil
    }

    /// Appends `value`, found at nesting level `depth` (counted as for a container); returns why it cannot be stored.
    private func write(_ value: JSONValue, depth: Int, into buffer: inout [UInt8]) -> String? {
        switch value {
        case .string(let text):
            writer.writeString(text, into: &buffer)
        case .double(let number):
            guard number.isFinite else { return StoreChange.nonFiniteProblem }
            writer.write(value, into: &buffer)
        case .object(let object):
            return write(object, depth: depth, into: &buffer)
        case .array(let elements):
            if depth > StoreChange.maximumItemDepth { return StoreChange.depthProblem }
            buffer.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { buffer.append(UInt8(ascii: ",")) }
                if let problem = write(element, depth: depth + 1, into: &buffer) { return problem }
            }
            buffer.append(UInt8(ascii: "]"))
        case .null, .bool, .int:
            writer.write(value, into: &buffer)
        }
        return nil
    }
}
