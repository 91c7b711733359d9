#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How ``JSONValueDecoder`` reads a scalar of a JSON tree into a Swift value: as `JSONDecoder` reads the same value
/// written as JSON text by ``JSONWriter``.
///
/// - An integer type reads `.int` and a `.double` with no fraction, when the type holds the number exactly; any other
///   number is `DecodingError.dataCorrupted`.
/// - `Double` reads either kind of number; `Float` too, unless the number rounds to infinity or, not being zero, to
///   zero (`dataCorrupted`).
/// - `Bool` reads only `true` and `false`; a string only a string. `null` is `valueNotFound`, any other kind
///   `typeMismatch`.
enum JSONScalarDecoding {
    static func string(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws(DecodingError) -> String {
        guard case .string(let text) = value else { throw .mismatch(String.self, found: value, at: path()) }
        return text
    }

    static func bool(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws(DecodingError) -> Bool {
        guard case .bool(let flag) = value else { throw .mismatch(Bool.self, found: value, at: path()) }
        return flag
    }

    static func integer<Integer: FixedWidthInteger>(_ type: Integer.Type, _ value: JSONValue,
                                                    at path: @autoclosure () -> [any CodingKey]) throws(DecodingError) -> Integer {
        switch value {
        case .int(let number):
            if let exact = Integer(exactly: number) { return exact }
        case .double(let number):
            if let exact = Integer(exactly: number) { return exact }
        default:
            throw .mismatch(Integer.self, found: value, at: path())
        }
        throw .numberNotRepresentable(value, at: path())
    }

    static func double(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws(DecodingError) -> Double {
        switch value {
        case .int(let number): return Double(number)
        case .double(let number): return number
        default: throw .mismatch(Double.self, found: value, at: path())
        }
    }

    static func float(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws(DecodingError) -> Float {
        switch value {
        case .int(let number):
            return Float(number)
        case .double(let number):
            let near = Float(number)
            if Double(near) == number { return near }
            // Not exact in a Float: round the number's text, as JSONDecoder does, rather than the Double (which
            // could round twice).
            if let parsed = Float(number.description), parsed.isFinite, parsed != 0 { return parsed }
            throw .numberNotRepresentable(value, at: path())
        default:
            throw .mismatch(Float.self, found: value, at: path())
        }
    }

    /// A `Decimal` read from the number's text, as `JSONDecoder` reads it.
    static func decimal(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws(DecodingError) -> Decimal {
        switch value {
        case .int, .double:
            if let decimal = Decimal(string: value.numberText) { return decimal }
            throw .numberNotRepresentable(value, at: path())
        default:
            throw .mismatch(Decimal.self, found: value, at: path())
        }
    }

    /// `value` as `JSONValue`'s own `init(from:)` reads it through `JSONDecoder`: a `.double` that an `Int64` holds
    /// exactly becomes `.int` (its decoder tries `Int64` before `Double`), at every depth.
    static func jsonValue(_ value: JSONValue) -> JSONValue {
        hasIntegralDouble(value) ? withIntegralDoublesAsInts(value) : value
    }

    private static func withIntegralDoublesAsInts(_ value: JSONValue) -> JSONValue {
        switch value {
        case .double(let number):
            if let exact = Int64(exactly: number) { return .int(exact) }
            return value
        case .array(let elements):
            return .array(elements.map(withIntegralDoublesAsInts))
        case .object(let members):
            return .object(members.mapValues(withIntegralDoublesAsInts))
        case .null, .bool, .int, .string:
            return value
        }
    }

    private static func hasIntegralDouble(_ value: JSONValue) -> Bool {
        switch value {
        case .double(let number): return Int64(exactly: number) != nil
        case .array(let elements): return elements.contains(where: hasIntegralDouble)
        case .object(let members): return members.values.contains(where: hasIntegralDouble)
        case .null, .bool, .int, .string: return false
        }
    }
}
