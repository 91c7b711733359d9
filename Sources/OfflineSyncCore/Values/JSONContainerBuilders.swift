/// An object ``JSONValueEncoder`` is filling in. Members are kept in the order set and made an object once, at the
/// end, so that each key is hashed once. Members that nested containers and super-encoders fill in later are held by
/// reference and read when the object is finished.
final class JSONObjectBuilder {
    private var members: [(key: String, value: JSONValue)] = []
    private var pending: [String: JSONPendingValue] = [:]

    init() {
        // Room for the members of a typical model without growing.
        members.reserveCapacity(8)
    }

    func set(_ value: JSONValue, for key: String) {
        members.append((key, value))
        if !pending.isEmpty { pending[key] = nil }
    }

    /// The object nested at `key`; the one already there when an earlier nested container made it.
    func nestedObject(for key: String) -> JSONObjectBuilder {
        if case .object(let existing)? = pending[key] { return existing }
        let nested = JSONObjectBuilder()
        pending[key] = .object(nested)
        return nested
    }

    /// The array nested at `key`; the one already there when an earlier nested container made it.
    func nestedArray(for key: String) -> JSONArrayBuilder {
        if case .array(let existing)? = pending[key] { return existing }
        let nested = JSONArrayBuilder()
        pending[key] = .array(nested)
        return nested
    }

    /// Sets `key` to what `encoder` holds when the object is finished.
    func setLater(_ encoder: JSONNodeEncoder, for key: String) {
        pending[key] = .encoder(encoder)
    }

    /// The object; of a key set twice, the later value.
    func finished() -> JSONObject {
        var object = JSONObject(minimumCapacity: members.count + pending.count)
        for (key, value) in members { object[key] = value }
        for (key, value) in pending { object[key] = value.finished() }
        return object
    }
}

/// An array ``JSONValueEncoder`` is filling in; elements that nested containers and super-encoders fill in later are
/// held by reference and read when the array is finished.
final class JSONArrayBuilder {
    private var elements: [JSONValue] = []
    private var pending: [(index: Int, value: JSONPendingValue)] = []

    var count: Int { elements.count }

    func append(_ value: JSONValue) {
        elements.append(value)
    }

    /// Appends an element filled in later.
    func appendLater(_ value: JSONPendingValue) {
        pending.append((elements.count, value))
        elements.append(.null)
    }

    func finished() -> [JSONValue] {
        guard !pending.isEmpty else { return elements }
        var array = elements
        for (index, value) in pending { array[index] = value.finished() }
        return array
    }
}

/// A member or element whose value a nested container or a super-encoder fills in after it was placed.
enum JSONPendingValue {
    case object(JSONObjectBuilder)
    case array(JSONArrayBuilder)
    case encoder(JSONNodeEncoder)

    /// The value as filled in; an empty object for a super-encoder that encoded nothing (as `JSONEncoder`).
    func finished() -> JSONValue {
        switch self {
        case .object(let builder): return .object(builder.finished())
        case .array(let builder): return .array(builder.finished())
        case .encoder(let encoder): return encoder.finishedValue() ?? .object([:])
        }
    }
}
