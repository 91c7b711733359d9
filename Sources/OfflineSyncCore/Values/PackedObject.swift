/// A JSON object as the stores hold an item in memory: when its keys are exactly those of the table's
/// ``JSONObjectShape``, a tag byte then one ``PackedValue`` per key in the shape's order (no key is stored);
/// otherwise a tag byte then the object's JSON text. A six-field record of the benchmark takes 68 bytes against
/// 175 of text.
///
/// Decoding gives the object that the JSON reader gives for the object's text (as written, or as `JSONWriter`
/// writes the object packed from values): the same keys and values. The text written back is that of the
/// decoded object, with the keys in the shape's order.
package enum PackedObject {
    /// JSON text follows.
    static let text: UInt8 = 0
    /// Packed values follow, one per key of the shape, in its order.
    static let shaped: UInt8 = 1

    // MARK: Writing

    /// Appends the packed form of `object`, shaped when its keys are exactly `shape`'s.
    package static func append(_ object: JSONObject, shape: JSONObjectShape?, to buffer: inout [UInt8]) {
        if let shape, appendShaped(object, shape: shape, to: &buffer) { return }
        buffer.append(text)
        JSONWriter().write(object, into: &buffer)
    }

    /// Appends the shaped form of `object` when its keys are exactly `shape`'s and `accept` accepts each value (asked
    /// in the order the dictionary lists them, which is the order ``JSONWriter`` writes them in), and returns true;
    /// appends nothing and returns false otherwise. The members are packed in that order, no key hashed (each is
    /// compared with the shape's, the next position first), then put in the shape's order when they were not.
    package static func appendShaped(_ object: JSONObject, shape: JSONObjectShape, to buffer: inout [UInt8],
                             accepting accept: (JSONValue) -> Bool = { _ in true }) -> Bool {
        guard object.count == shape.keys.count else { return false }
        let start = buffer.count
        buffer.append(shaped)
        let valuesStart = buffer.count
        // Where each position's value was packed, relative to `valuesStart`, and where it ends.
        return withUnsafeTemporaryAllocation(of: (start: Int, end: Int).self, capacity: shape.keys.count) { places in
            var next = 0
            var inOrder = true
            for (key, value) in object {
                guard let position = shape.position(of: key, trying: next), accept(value) else {
                    buffer.removeSubrange(start...)
                    return false
                }
                inOrder = inOrder && position == next
                next = position + 1
                let valueStart = buffer.count - valuesStart
                PackedValue.append(value, to: &buffer)
                places[position] = (valueStart, buffer.count - valuesStart)
            }
            if !inOrder { reorder(&buffer, from: valuesStart, places: UnsafeBufferPointer(places)) }
            return true
        }
    }

    /// Puts the packed values that lie from `start` on in `buffer` in the order of `places` (each one's range
    /// there, relative to `start`).
    private static func reorder(_ buffer: inout [UInt8], from start: Int, places: UnsafeBufferPointer<(start: Int, end: Int)>) {
        buffer.withUnsafeMutableBytes { raw in
            let values = UnsafeMutableRawBufferPointer(rebasing: raw[start...])
            withUnsafeTemporaryAllocation(byteCount: values.count, alignment: 1) { copy in
                copy.copyMemory(from: UnsafeRawBufferPointer(values))
                var written = 0
                for place in places {
                    UnsafeMutableRawBufferPointer(rebasing: values[written...])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: copy[place.start..<place.end]))
                    written += place.end - place.start
                }
            }
        }
    }

    /// Appends the packed form of the object whose JSON text is `json`, shaped when its keys are exactly `shape`'s;
    /// returns false, appending nothing, when `json` is not one JSON object.
    package static func append(json: UnsafeBufferPointer<UInt8>, shape: JSONObjectShape?, to buffer: inout [UInt8]) -> Bool {
        var members = 0
        guard case .success(let ranges) = JSONReader.skimObject(json, keys: shape?.keys ?? [], memberCount: &members) else {
            return false
        }
        append(json: json, ranges: ranges[...], memberCount: members, shape: shape, to: &buffer)
        return true
    }

    /// Appends the packed form of the object whose JSON text is `json`, already skimmed
    /// (``JSONReader/skimObject(_:keys:memberCount:)``) for `shape`'s keys, first in the keys asked: `ranges`
    /// holds the ranges of those (nil when absent) and `memberCount` the object's count of members. An object
    /// whose keys are not the shape's, or that holds a value that cannot be packed, is kept as its text.
    package static func append(json: UnsafeBufferPointer<UInt8>, ranges: ArraySlice<Range<Int>?>, memberCount: Int, shape: JSONObjectShape?,
                       to buffer: inout [UInt8]) {
        if let shape, ranges.count == shape.keys.count, memberCount == ranges.count, ranges.allSatisfy({ $0 != nil }) {
            let start = buffer.count
            buffer.append(shaped)
            var complete = true
            for case let range? in ranges where !appendValue(UnsafeBufferPointer(rebasing: json[range]), to: &buffer) {
                complete = false
                break
            }
            if complete { return }
            buffer.removeSubrange(start...)
        }
        buffer.append(text)
        buffer.append(contentsOf: json)
    }

    /// Appends the packed form of the JSON value whose (checked) text is `json`: a string with no escape straight
    /// from its bytes, any other value as the reader reads it.
    private static func appendValue(_ json: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8]) -> Bool {
        guard let first = json.first else { return false }
        switch first {
        case UInt8(ascii: "\"") where json.count >= 2 && !ByteScan.containsBackslash(json):
            PackedValue.appendString(UnsafeBufferPointer(rebasing: json[1..<(json.count - 1)]), to: &buffer)
        case UInt8(ascii: "t"): buffer.append(PackedValue.true)
        case UInt8(ascii: "f"): buffer.append(PackedValue.false)
        case UInt8(ascii: "n"): buffer.append(PackedValue.null)
        default:
            guard case .success(let value) = JSONReader.result(json) else { return false }
            PackedValue.append(value, to: &buffer)
        }
        return true
    }

    // MARK: Reading

    /// The object packed in `bytes` with `shape` (the shape it was packed with); nil when the bytes are not one.
    package static func decode(_ bytes: UnsafeRawBufferPointer, shape: JSONObjectShape?) -> JSONObject? {
        var readerShape = shape
        return decode(bytes, shape: shape, readerShape: &readerShape)
    }

    /// ``decode(_:shape:)``, reading an object kept as text starting from `readerShape` (the JSON reader's guess of
    /// its keys, updated).
    package static func decode(_ bytes: UnsafeRawBufferPointer, shape: JSONObjectShape?, readerShape: inout JSONObjectShape?) -> JSONObject? {
        guard let tag = bytes.first else { return nil }
        if tag == text {
            let json = UnsafeRawBufferPointer(rebasing: bytes[1...]).assumingMemoryBound(to: UInt8.self)
            guard case .success(.object(let object)) = JSONReader.result(json, shape: &readerShape) else { return nil }
            return object
        }
        guard tag == shaped, let shape else { return nil }
        var offset = 1
        return shape.instantiate { _ in PackedValue.read(bytes, at: &offset) }
    }

    /// What `body` answers for the UTF-8 bytes of the string `field` holds in the object packed in `bytes` with
    /// `shape`, without building the string or the rest of the object; nil when the object is not packed with
    /// `shape` or `field` holds no string there.
    package static func withUTF8(of field: String, in bytes: UnsafeRawBufferPointer, shape: JSONObjectShape?,
                                 _ body: (UnsafeBufferPointer<UInt8>) -> Bool?) -> Bool? {
        guard bytes.first == shaped, let shape, let position = shape.position(of: field, trying: 0) else { return nil }
        var offset = 1
        for _ in 0..<position {
            guard PackedValue.skip(bytes, at: &offset) != nil else { return nil }
        }
        return PackedValue.withUTF8(bytes, at: offset, body)
    }

    /// The value of `field` in the object packed in `bytes` with `shape` (null when it has none), without building
    /// the rest of it or any array; nil when the bytes are not a packed object.
    package static func value(of field: String, in bytes: UnsafeRawBufferPointer, shape: JSONObjectShape?) -> JSONValue? {
        guard bytes.first == shaped, let shape else { return values(of: [field], in: bytes, shape: shape)?.first }
        guard let position = shape.position(of: field, trying: 0) else { return .null }
        var offset = 1
        for _ in 0..<position {
            guard PackedValue.skip(bytes, at: &offset) != nil else { return nil }
        }
        return PackedValue.read(bytes, at: &offset)
    }

    /// The values of `fields` in the object packed in `bytes` with `shape` (null for a missing one), without
    /// building the rest of it; nil when the bytes are not a packed object.
    package static func values(of fields: [String], in bytes: UnsafeRawBufferPointer, shape: JSONObjectShape?) -> [JSONValue]? {
        guard let tag = bytes.first else { return nil }
        if tag == text {
            let json = UnsafeRawBufferPointer(rebasing: bytes[1...]).assumingMemoryBound(to: UInt8.self)
            guard case .success(let ranges) = JSONReader.skimObject(json, keys: fields) else { return nil }
            return ranges.map { range in
                guard let range, case .success(let value) = JSONReader.result(UnsafeBufferPointer(rebasing: json[range])) else {
                    return .null
                }
                return value
            }
        }
        guard tag == shaped, let shape else { return nil }
        let positions = fields.map { shape.keys.firstIndex(of: $0) }
        var found = [JSONValue](repeating: .null, count: fields.count)
        // The shape's keys to read: a field asked twice is read once.
        var remaining = positions.indices.reduce(0) { count, field in
            positions[field] != nil && positions[..<field].firstIndex(of: positions[field]) == nil ? count + 1 : count
        }
        var offset = 1
        for position in shape.keys.indices where remaining > 0 {
            guard positions.contains(position) else {
                guard PackedValue.skip(bytes, at: &offset) != nil else { return nil }
                continue
            }
            guard let value = PackedValue.read(bytes, at: &offset) else { return nil }
            for (field, wanted) in positions.enumerated() where wanted == position { found[field] = value }
            remaining -= 1
        }
        return found
    }

    /// How many bytes the JSON text of the object packed in `bytes` with `shape` can take at most.
    package static func jsonLengthBound(_ bytes: UnsafeRawBufferPointer, shape: JSONObjectShape?) -> Int {
        guard bytes.first == shaped, let shape else { return max(0, bytes.count - 1) }
        // Braces, commas and keys, then the values.
        return 1 + shape.keyTokenBytes + shape.keys.count + PackedValue.jsonLengthBound(packedCount: bytes.count - 1)
    }

    /// Writes the JSON text of the object packed in `bytes` with `shape` at the start of `output`, which has room
    /// for ``jsonLengthBound(_:shape:)``; returns how many bytes it wrote, nil when the bytes are not a packed object.
    package static func writeJSON(_ bytes: UnsafeRawBufferPointer, shape: JSONObjectShape?, to output: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        guard let tag = bytes.first else { return nil }
        if tag == text {
            UnsafeMutableRawBufferPointer(output).copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[1...]))
            return bytes.count - 1
        }
        guard tag == shaped, let shape else { return nil }
        return shape.withKeyTokens { tokens, ends -> Int? in
            var offset = 1
            var written = 0
            for position in ends.indices {
                output[written] = position == 0 ? UInt8(ascii: "{") : UInt8(ascii: ",")
                written += 1
                let token = UnsafeBufferPointer(rebasing: tokens[(position == 0 ? 0 : ends[position - 1])..<ends[position]])
                _ = UnsafeMutableBufferPointer(rebasing: output[written...]).initialize(fromContentsOf: token)
                written += token.count
                guard let length = PackedValue.writeJSON(bytes, at: &offset, to: UnsafeMutableBufferPointer(rebasing: output[written...])) else {
                    return nil
                }
                written += length
            }
            output[written] = UInt8(ascii: "}")
            return written + 1
        }
    }

    /// Appends the JSON text of the object packed in `bytes` with `shape`; false, appending nothing, when the bytes
    /// are not one.
    package static func appendJSON(_ bytes: UnsafeRawBufferPointer, shape: JSONObjectShape?, to buffer: inout [UInt8]) -> Bool {
        let start = buffer.count
        let bound = jsonLengthBound(bytes, shape: shape)
        // Room to write into: copied from zeros, which is faster than appending them one by one.
        if bound <= zeros.count {
            zeros.withUnsafeBufferPointer { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<bound])) }
        } else {
            buffer.append(contentsOf: repeatElement(0, count: bound))
        }
        let written = buffer.withUnsafeMutableBufferPointer { output in
            writeJSON(bytes, shape: shape, to: UnsafeMutableBufferPointer(rebasing: output[start...]))
        }
        buffer.removeLast(bound - (written ?? 0))
        return written != nil
    }

    private static let zeros = [UInt8](repeating: 0, count: 4096)
}
