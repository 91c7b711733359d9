/// The distinct keys of an object, with a prototype dictionary holding those keys.
///
/// Building a `JSONObject` hashes every key. When many objects have the same distinct keys (the items of a
/// snapshot, the items of one batch), the reader copies the prototype instead and replaces its values in place
/// through `values[index]`: a copy keeps the prototype's layout, so no key is hashed again. The result is the same
/// dictionary, with the same keys and values, as building it key by key. The members' count must equal the keys'
/// count and each member must name a different key of the shape, so the key sets are equal. A class, so that the
/// tables and readers that hold one copy a single reference; it never changes once made.
final class JSONObjectShape: Sendable {
    /// Objects with more keys are built key by key.
    static let maximumKeys = 64

    /// The keys in document order.
    let keys: [String]
    /// A dictionary with exactly these keys (values `null`) and the capacity the reader gives such an object.
    private let prototype: JSONObject
    /// The prototype's index of each key, in document order.
    private let indices: [JSONObject.Index]
    /// Each key as compact text writes it before its value (`"id":`, `"text":`, ...), back to back: key i's
    /// token ends at `tokenEnds[i]`.
    private let tokens: [UInt8]
    private let tokenEnds: [Int]
    /// The UTF-8 length of each key.
    private let keyLengths: [Int]

    /// The shape of objects listing the distinct `keys` in this order.
    init?(keys: [String]) {
        var prototype = JSONObject(minimumCapacity: keys.count)
        for key in keys { prototype[key] = .null }
        var indices: [JSONObject.Index] = []
        indices.reserveCapacity(keys.count)
        for key in keys {
            guard let index = prototype.index(forKey: key) else { return nil }
            indices.append(index)
        }
        var tokens: [UInt8] = []
        var tokenEnds: [Int] = []
        for key in keys {
            JSONWriter().write(.string(key), into: &tokens)
            tokens.append(UInt8(ascii: ":"))
            tokenEnds.append(tokens.count)
        }
        self.keys = keys
        self.prototype = prototype
        self.indices = indices
        self.tokens = tokens
        self.tokenEnds = tokenEnds
        keyLengths = keys.map(\.utf8.count)
    }

    /// The shape of `object`'s keys (in its own order), or nil when it has fewer than two or more than
    /// ``maximumKeys``.
    convenience init?(of object: JSONObject) {
        guard object.count >= 2, object.count <= Self.maximumKeys else { return nil }
        self.init(keys: Array(object.keys))
    }

    /// Reads the object at `reader`'s position when its text is compact (as `JSONWriter` writes it) and lists
    /// exactly this shape's keys, in any order, each written as `JSONWriter` writes it: each value goes straight
    /// into a copy of the prototype, with no key read or hashed. Returns nil, with the reader where it was, for any
    /// other text.
    /// - Throws: ``JSONParseError`` for a malformed value.
    func read(from reader: inout JSONReader) throws(JSONParseError) -> JSONObject? {
        let start = reader.index
        var object = prototype
        // The values are inside this object, one level deep, as when the reader reads it member by member.
        reader.depth += 1
        defer { reader.depth -= 1 }
        let matched = try tokens.withUnsafeBufferPointer { tokens throws(JSONParseError) -> Bool in
            var seen: UInt64 = 0
            for position in 0..<keys.count {
                let opening = position == 0 ? UInt8(ascii: "{") : UInt8(ascii: ",")
                guard reader.index < reader.bytes.count, reader.bytes[reader.index] == opening else { return false }
                reader.index += 1
                // Objects of one shape often list their keys in the same order: try the same position first.
                guard let slot = matchingKey(at: reader, tokens: tokens, first: position) else { return false }
                let bit = UInt64(1) << UInt64(slot)
                if seen & bit != 0 { return false }
                seen |= bit
                reader.index += tokenEnds[slot] - (slot == 0 ? 0 : tokenEnds[slot - 1])
                object.values[indices[slot]] = try reader.parseValue()
            }
            guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "}") else { return false }
            reader.index += 1
            return true
        }
        guard matched else {
            reader.index = start
            return nil
        }
        return object
    }

    /// The key whose token the reader's bytes start with, trying `first` before the others; nil for none.
    private func matchingKey(at reader: borrowing JSONReader, tokens: UnsafeBufferPointer<UInt8>, first: Int) -> Int? {
        func matches(_ slot: Int) -> Bool {
            let tokenStart = slot == 0 ? 0 : tokenEnds[slot - 1]
            let length = tokenEnds[slot] - tokenStart
            guard reader.index + length <= reader.bytes.count else { return false }
            for offset in 0..<length where reader.bytes[reader.index + offset] != tokens[tokenStart + offset] { return false }
            return true
        }
        if matches(first) { return first }
        for slot in keys.indices where slot != first && matches(slot) { return slot }
        return nil
    }

    /// The object whose value for the key at each position of ``keys`` is `value(position)`, asked in order;
    /// nil when one is nil.
    func instantiate(_ value: (Int) -> JSONValue?) -> JSONObject? {
        var object = prototype
        for position in keys.indices {
            guard let member = value(position) else { return nil }
            object.values[indices[position]] = member
        }
        return object
    }

    /// The keys as compact text writes each before its value (`"id":`, `"text":`, ...), back to back, and where
    /// each ends: key i's token is `tokens[ends[i - 1]..<ends[i]]` (from 0 for the first).
    func withKeyTokens<T>(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<Int>) -> T) -> T {
        tokens.withUnsafeBufferPointer { tokens in tokenEnds.withUnsafeBufferPointer { body(tokens, $0) } }
    }

    /// How many bytes the keys' tokens take together.
    var keyTokenBytes: Int { tokens.count }

    /// The position of `key` in ``keys``, trying `guess` first; nil when it is not one of them.
    func position(of key: String, trying guess: Int) -> Int? {
        if guess < keys.count, keys[guess] == key { return guess }
        // Comparing the lengths first spares most calls to compare strings.
        let length = key.utf8.count
        for position in keys.indices where keyLengths[position] == length && keys[position] == key { return position }
        return nil
    }

    /// The object holding `members`, or nil when their keys are not exactly this shape's keys (in any order,
    /// since a dictionary written out lists its keys in no particular order).
    func instantiate(_ members: ArraySlice<Member>) -> JSONObject? {
        guard members.count == keys.count else { return nil }
        var object = prototype
        var seen: UInt64 = 0
        var position = 0
        for member in members {
            // Objects of one shape usually list their keys in the same order: try the same position first.
            guard let slot = self.position(of: member.key, trying: position) else { return nil }
            let bit = UInt64(1) << UInt64(slot)
            if seen & bit != 0 { return nil }
            seen |= bit
            object.values[indices[slot]] = member.value
            position += 1
        }
        return object
    }
}
