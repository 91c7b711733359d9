#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How ``JSONValueEncoder`` turns a Swift number into a JSON tree's number: as `JSONEncoder` writes it as text and
/// ``JSONReader`` reads that text back.
///
/// - An integer becomes `.int`; one beyond `Int64` (a large `UInt64`) is an `EncodingError`, as the text
///   `JSONEncoder` writes for it does not read back into an item.
/// - A `Double` or `Float` is written by `JSONEncoder` as its `description` less a trailing `.0`: a whole number
///   written without an exponent (`3`, `1000000000000000`) becomes `.int`, any other (`0.5`, `1e+16`) `.double`
///   of the value the text reads back as (for a `Float`, the shortest text's `Double`, `0.1` for `Float(0.1)`).
///   NaN and infinity are an `EncodingError`, as with `JSONEncoder`'s default strategy.
/// - A `Decimal` is its `description` read back, so `.int` when whole, `.double` otherwise.
enum JSONScalarEncoding {
    static func integer<Integer: FixedWidthInteger>(_ number: Integer,
                                                    at path: @autoclosure () -> [any CodingKey]) throws(EncodingError) -> JSONValue {
        if let exact = Int64(exactly: number) { return .int(exact) }
        throw .invalidValue(number, .init(codingPath: path(),
                                          debugDescription: "\(number) is beyond the 64-bit integers a JSON item holds."))
    }

    static func double(_ number: Double, at path: @autoclosure () -> [any CodingKey]) throws(EncodingError) -> JSONValue {
        guard number.isFinite else { throw nonConforming(number, at: path()) }
        let whole = number.rounded(.towardZero)
        if whole != number { return .double(number) }
        // Every whole Double below 1e15 is described without an exponent ("123.0").
        if number.magnitude < 1e15 { return .int(Int64(number)) }
        return try read(number.description, of: number, at: path())
    }

    static func float(_ number: Float, at path: @autoclosure () -> [any CodingKey]) throws(EncodingError) -> JSONValue {
        guard number.isFinite else { throw nonConforming(number, at: path()) }
        return try read(number.description, of: number, at: path())
    }

    static func decimal(_ number: Decimal, at path: @autoclosure () -> [any CodingKey]) throws(EncodingError) -> JSONValue {
        try read(number.description, of: number, at: path())
    }

    /// The value ``JSONReader`` reads from the number text `JSONEncoder` writes for `description`.
    private static func read(_ description: String, of number: Any,
                             at path: @autoclosure () -> [any CodingKey]) throws(EncodingError) -> JSONValue {
        let text = description.hasSuffix(".0") ? String(description.dropLast(2)) : description
        do {
            return try JSONValue(parsing: text)
        } catch {
            throw .invalidValue(number, .init(codingPath: path(),
                                              debugDescription: "\(text) is not a number a JSON item holds: \(error)"))
        }
    }

    private static func nonConforming<Number: BinaryFloatingPoint>(_ number: Number, at path: [any CodingKey]) -> EncodingError {
        let name = number.isNaN ? "\(Number.self).nan" : number < 0 ? "-\(Number.self).infinity" : "\(Number.self).infinity"
        return .invalidValue(number, .init(codingPath: path, debugDescription: "Unable to encode \(name) directly in JSON."))
    }
}

extension JSONScalarEncoding {
    /// `tree` as `JSONValue`'s `encode(to:)` writes it through `JSONEncoder` and ``JSONReader`` reads it back: each
    /// `.double` as ``double(_:at:)`` makes it (a whole one below 1e15 becomes `.int`); nil when one is NaN or infinite.
    static func jsonValue(_ tree: JSONValue) -> JSONValue? {
        switch tree {
        case .double(let number):
            return try? double(number, at: [])
        case .array(let elements):
            guard elements.contains(where: holdsWholeOrNonFiniteDouble) else { return tree }
            var converted: [JSONValue] = []
            converted.reserveCapacity(elements.count)
            for element in elements {
                guard let value = jsonValue(element) else { return nil }
                converted.append(value)
            }
            return .array(converted)
        case .object(let members):
            guard members.values.contains(where: holdsWholeOrNonFiniteDouble) else { return tree }
            var converted: JSONObject = [:]
            converted.reserveCapacity(members.count)
            for (key, member) in members {
                guard let value = jsonValue(member) else { return nil }
                converted[key] = value
            }
            return .object(converted)
        case .null, .bool, .int, .string:
            return tree
        }
    }

    /// Whether `tree` holds a `.double` that ``double(_:at:)`` does not keep as it is.
    private static func holdsWholeOrNonFiniteDouble(_ tree: JSONValue) -> Bool {
        switch tree {
        case .double(let number): return !number.isFinite || number.rounded(.towardZero) == number
        case .array(let elements): return elements.contains(where: holdsWholeOrNonFiniteDouble)
        case .object(let members): return members.values.contains(where: holdsWholeOrNonFiniteDouble)
        case .null, .bool, .int, .string: return false
        }
    }
}
