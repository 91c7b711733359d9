/// A JSON value. Integers stay exact (never routed through `Double`).
///
/// `JSONValue` is the currency of OfflineSync: items are ``JSONObject``s, filters compare fields with
/// `JSONValue`s, and the journal store writes every record through ``JSONValue/jsonBytes(sortedKeys:)``.
///
/// ```swift
/// let item: JSONObject = ["id": "A1", "text": "buy milk", "priority": 3, "complete": false]
/// let bytes = JSONValue.object(item).jsonBytes()
/// let back = try JSONValue(parsing: bytes)
/// ```
public enum JSONValue: Sendable, Hashable {
    /// The JSON `null` literal.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case int(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array of values.
    case array([JSONValue])
    /// An object; key order is not significant.
    case object([String: JSONValue])
}

/// A JSON object: the shape of every item OfflineSync stores and syncs.
public typealias JSONObject = [String: JSONValue]

extension JSONValue {
    /// The string, when this value is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, when this value is an integer.
    public var intValue: Int64? {
        if case .int(let value) = self { return value }
        return nil
    }

    /// The number as a `Double`, when this value is an integer or a double.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The Boolean, when this value is a Boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The object, when this value is an object.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The array, when this value is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// Whether this value is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
