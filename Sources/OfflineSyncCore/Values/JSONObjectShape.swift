/// The distinct keys of an object, with a prototype dictionary holding those keys.
///
/// Building a `JSONObject` hashes every key. When many objects have the same distinct keys (the items of a
/// snapshot, the items of one batch), the reader copies the prototype instead and replaces its values in place
/// through `values[index]`: a copy keeps the prototype's layout, so no key is hashed again. The result is the same
/// dictionary, with the same keys and values, as building it key by key. The members' count must equal the keys'
/// count and each member must name a different key of the shape, so the key sets are equal. A class, so that the
/// tables and readers that hold one copy a single reference; it never changes once made.
package final class JSONObjectShape: Sendable {
    /// Objects with more keys are built key by key.
    static let maximumKeys = 64

    /// The keys in document order.
    package let keys: [String]
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
    package init?(keys: [String]) {
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
    package convenience init?(of object: JSONObject) {
        guard object.count >= 2, object.count <= Self.maximumKeys else { return nil }
        self.init(keys: Array(object.keys))
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
