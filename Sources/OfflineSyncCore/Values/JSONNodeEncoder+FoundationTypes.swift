#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension JSONNodeEncoder {
    /// The tree of `value` when `Value` is a type `JSONEncoder` writes itself rather than through the type's
    /// `encode(to:)`; nil for any other type.
    ///
    /// - `Date`: ``Timestamp/string(from:)`` (the table protocol's dates, `2026-01-01T00:00:00.000Z`);
    /// - `Data`: its base64 string; `URL`: its absolute string; `Decimal`: see ``JSONScalarEncoding/decimal(_:at:)``;
    /// - ``JSONValue``: as its own `encode(to:)` writes it through `JSONEncoder` (see ``JSONScalarEncoding``); one
    ///   holding NaN or infinity goes through `encode(to:)` for the error's coding path.
    static func foundationValue<Value: Encodable>(_ value: Value,
                                                  at path: @autoclosure () -> [any CodingKey]) throws(EncodingError) -> JSONValue? {
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
