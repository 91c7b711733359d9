/// The distinct keys of an object, with a prototype dictionary holding those keys.
///
/// Building a `JSONObject` hashes every key. When many objects have the same distinct keys (the items of a
/// snapshot, the items of one batch), the reader copies the prototype instead and replaces its values in place
/// through `values[index]`: a copy keeps the prototype's layout, so no key is hashed again. The result is the same
/// dictionary, with the same keys and values, as building it key by key. The members' count must equal the keys'
/// count and each member must name a different key of the shape, so the key sets are equal.
struct JSONObjectShape {
    /// Objects with more keys are built key by key.
    static let maximumKeys = 64

    /// The keys in document order.
    private let keys: [String]
    /// A dictionary with exactly these keys (values `null`) and the capacity the reader gives such an object.
    private let prototype: JSONObject
    /// The prototype's index of each key, in document order.
    private let indices: [JSONObject.Index]

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
        self.keys = keys
        self.prototype = prototype
        self.indices = indices
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
            var slot = position < keys.count && keys[position] == member.key ? position : -1
            if slot < 0 {
                guard let found = keys.firstIndex(of: member.key) else { return nil }
                slot = found
            }
            let bit = UInt64(1) << UInt64(slot)
            if seen & bit != 0 { return nil }
            seen |= bit
            object.values[indices[slot]] = member.value
            position += 1
        }
        return object
    }
}
