/// The errors ``JSONValueDecoder`` throws, worded as `JSONDecoder` words them.
extension DecodingError {
    /// `value` is not of the kind `type` decodes from: `valueNotFound` for `null`, `typeMismatch` otherwise.
    static func mismatch(_ type: Any.Type, found value: JSONValue, at path: [any CodingKey]) -> DecodingError {
        if value == .null {
            return .valueNotFound(type, Context(codingPath: path,
                                                debugDescription: "Cannot get value of type \(type) -- found null value instead"))
        }
        return .typeMismatch(type, Context(codingPath: path,
                                           debugDescription: "Expected to decode \(type) but found \(value.kindDescription) instead."))
    }

    /// A container of `type` was asked of `value`, which is not an object or array as needed.
    static func containerMismatch(_ type: Any.Type, _ container: String, found value: JSONValue,
                                  at path: [any CodingKey]) -> DecodingError {
        if value == .null {
            return .valueNotFound(type, Context(codingPath: path,
                                                debugDescription: "Cannot get \(container) decoding container -- found null value instead"))
        }
        return mismatch(type, found: value, at: path)
    }

    /// A number that the Swift type asked for cannot hold (a fraction for an integer, out of range).
    static func numberNotRepresentable(_ value: JSONValue, at path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(Context(codingPath: path, debugDescription: "Number \(value.numberText) is not representable in Swift."))
    }

    /// A keyed container has no value for `key`.
    static func keyNotFound(_ key: any CodingKey, at path: [any CodingKey]) -> DecodingError {
        .keyNotFound(key, Context(codingPath: path,
                                  debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
    }
}

extension JSONValue {
    /// The kind of this value as `JSONDecoder`'s errors name it ("a string", "number", …).
    var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "bool"
        case .int, .double: return "number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "a dictionary"
        }
    }

    /// A number as ``JSONWriter`` writes it (what `JSONDecoder` read on the way through JSON text).
    var numberText: String {
        switch self {
        case .int(let number): return String(number)
        case .double(let number): return number.description
        default: return jsonString()
        }
    }
}
