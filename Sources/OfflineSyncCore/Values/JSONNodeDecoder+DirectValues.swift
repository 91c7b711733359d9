#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension JSONNodeDecoder {
    /// Whether ``directValue(_:from:at:)`` reads `type` itself rather than through the type's `init(from:)`.
    static func readsDirectly(_ type: Any.Type) -> Bool {
        type == String.self || type == Int.self || type == Double.self || type == Bool.self || type == Int64.self
            || type == [String].self || type == Date.self || type == JSONValue.self || type == Data.self
            || type == URL.self || type == Decimal.self
    }

    /// `value` as `Value` when `Value` is a type this decoder reads itself rather than through the type's
    /// `init(from:)`; nil for any other type.
    ///
    /// - `Date`: an ISO 8601 date-time string (the table protocol's dates, what ``Timestamp/date(from:)`` accepts);
    /// - `Data`: a base64 string; `URL`: a string `URL(string:)` accepts; `Decimal`: a number's text;
    /// - ``JSONValue``: as its own `init(from:)` reads it (see ``JSONScalarDecoding/jsonValue(_:)``).
    ///
    /// The Foundation types are read here as `JSONDecoder` reads them itself. The scalars (`String`, `Int`, `Double`,
    /// `Bool`, `Int64`) and `[String]` are read here for speed only, as their `init(from:)` would read them, with the
    /// same errors: they arrive through the generic `decode` as elements of arrays and dictionaries.
    static func directValue<Value>(_ type: Value.Type, from value: JSONValue,
                                   at path: @autoclosure () -> [any CodingKey]) throws(DecodingError) -> Value? {
        if Value.self == String.self { return try JSONScalarDecoding.string(value, at: path()) as? Value }
        if Value.self == Int.self { return try JSONScalarDecoding.integer(Int.self, value, at: path()) as? Value }
        if Value.self == Double.self { return try JSONScalarDecoding.double(value, at: path()) as? Value }
        if Value.self == Bool.self { return try JSONScalarDecoding.bool(value, at: path()) as? Value }
        if Value.self == Int64.self { return try JSONScalarDecoding.integer(Int64.self, value, at: path()) as? Value }
        if Value.self == [String].self {
            // Any element that is not a string goes the generic way, for its error.
            guard case .array(let elements) = value else { return nil }
            var strings: [String] = []
            strings.reserveCapacity(elements.count)
            for element in elements {
                guard case .string(let text) = element else { return nil }
                strings.append(text)
            }
            return strings as? Value
        }
        if Value.self == Date.self {
            let text = try JSONScalarDecoding.string(value, at: path())
            guard let date = Timestamp.date(from: text) else {
                throw .dataCorrupted(.init(codingPath: path(), debugDescription: "\"\(text)\" is not an ISO 8601 date-time."))
            }
            return date as? Value
        }
        if Value.self == JSONValue.self {
            return JSONScalarDecoding.jsonValue(value) as? Value
        }
        if Value.self == Data.self {
            guard let data = Data(base64Encoded: try JSONScalarDecoding.string(value, at: path())) else {
                throw .dataCorrupted(.init(codingPath: path(), debugDescription: "Encountered Data is not valid Base64."))
            }
            return data as? Value
        }
        if Value.self == URL.self {
            guard let url = URL(string: try JSONScalarDecoding.string(value, at: path())) else {
                throw .dataCorrupted(.init(codingPath: path(), debugDescription: "Invalid URL string."))
            }
            return url as? Value
        }
        if Value.self == Decimal.self {
            return try JSONScalarDecoding.decimal(value, at: path()) as? Value
        }
        return nil
    }
}
