#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension JSONNodeEncoder {
    /// The tree of `value` when `Value` is a type this encoder writes itself rather than through the type's
    /// `encode(to:)`; nil for any other type.
    ///
    /// - `Date`: ``Timestamp/string(from:)`` (the table protocol's dates, `2026-01-01T00:00:00.000Z`);
    /// - `Data`: its base64 string; `URL`: its absolute string; `Decimal`: see ``JSONScalarEncoding/decimal(_:at:)``;
    /// - ``JSONValue``: as its own `encode(to:)` writes it through `JSONEncoder` (see ``JSONScalarEncoding``); one
    ///   holding NaN or infinity goes through `encode(to:)` for the error's coding path.
    ///
    /// The Foundation types are written here as `JSONEncoder` writes them itself. The scalars (`String`, `Int`,
    /// `Double`, `Bool`, `Int64`) and `[String]` are written here for speed only, as their `encode(to:)` would write
    /// them: they arrive through the generic `encode` as elements of arrays and dictionaries.
    static func directValue<Value: Encodable>(_ value: Value,
                                              at path: @autoclosure () -> [any CodingKey]) throws(EncodingError) -> JSONValue? {
        if Value.self == String.self, let text = value as? String { return .string(text) }
        if Value.self == Int.self, let number = value as? Int { return try JSONScalarEncoding.integer(number, at: path()) }
        if Value.self == Double.self, let number = value as? Double { return try JSONScalarEncoding.double(number, at: path()) }
        if Value.self == Bool.self, let flag = value as? Bool { return .bool(flag) }
        if Value.self == Int64.self, let number = value as? Int64 { return .int(number) }
        if Value.self == [String].self, let strings = value as? [String] { return .array(strings.map(JSONValue.string)) }
        if Value.self == Date.self, let date = value as? Date {
            return .string(Timestamp.string(from: date))
        }
        if Value.self == JSONValue.self, let tree = value as? JSONValue {
            return JSONScalarEncoding.jsonValue(tree)
        }
        if Value.self == Data.self, let data = value as? Data {
            return .string(data.base64EncodedString())
        }
        if Value.self == URL.self, let url = value as? URL {
            return .string(url.absoluteString)
        }
        if Value.self == Decimal.self, let decimal = value as? Decimal {
            return try JSONScalarEncoding.decimal(decimal, at: path())
        }
        return nil
    }
}
