#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Filter {
    /// Whether `item` satisfies the filter, with the comparison semantics every data source shares.
    ///
    /// A missing field is `null`. Ordering operators hold only between values of the same kind (numbers, strings,
    /// Booleans) or, for `<=` and `>=`, between equal values. String tests are case-sensitive and fail on
    /// non-strings. A date comparison fails when the field is not an ISO 8601 string (and `!=` then holds). A string
    /// compared with `updatedAt` or `createdAt` is an instant when it reads as one (a full ISO 8601 date-time with
    /// a zone); a shorter text, such as the date `"2026-12-01"`, is compared as text.
    public func matches(_ item: JSONObject) -> Bool {
        switch self {
        case .comparison(let field, let op, let value):
            let fieldValue = item[field.name] ?? .null
            if let instant = Filter.comparedInstant(field: field.name, value) {
                return Filter.compareInstant(fieldValue, op, instant)
            }
            return Filter.evaluate(fieldValue, op, value)
        case .dateComparison(let field, let op, let date):
            return Filter.compareInstant(item[field.name] ?? .null, op, Timestamp.milliseconds(of: date))
        case .string(let field, let match, let text):
            guard case .string(let value)? = item[field.name] else { return false }
            return Filter.stringMatches(value, match, text)
        case .and(let lhs, let rhs):
            return lhs.matches(item) && rhs.matches(item)
        case .or(let lhs, let rhs):
            return lhs.matches(item) || rhs.matches(item)
        case .not(let inner):
            return !inner.matches(item)
        }
    }

    /// `createdAt` and `updatedAt` hold timestamps: strings compared with them are instants.
    package static func isTimestampField(_ name: String) -> Bool {
        name == "updatedAt" || name == "createdAt"
    }

    /// The instant (milliseconds since 1970) that `field op value` compares the field's value with, or nil when it
    /// compares values: a string on a timestamp field is an instant when it reads as one (a full ISO 8601 date-time
    /// with a zone, ``Timestamp/milliseconds(from:)``). A shorter text (`"2026-12-01"`, `"2026-12-01T10:20"`, a
    /// time without a zone) is compared as text, by its UTF-8 bytes, like any string.
    package static func comparedInstant(field: String, _ value: JSONValue) -> Int64? {
        guard case .string(let text) = value, isTimestampField(field) else { return nil }
        return Timestamp.milliseconds(from: text)
    }

    static func evaluate(_ lhs: JSONValue, _ op: ComparisonOperator, _ rhs: JSONValue) -> Bool {
        switch op {
        case .equal: return ValueComparison.equal(lhs, rhs)
        case .notEqual: return !ValueComparison.equal(lhs, rhs)
        case .lessThan: return (ValueComparison.order(lhs, rhs) ?? 0) < 0
        case .greaterThan: return (ValueComparison.order(lhs, rhs) ?? 0) > 0
        case .lessThanOrEqual:
            return ValueComparison.equal(lhs, rhs) || (ValueComparison.order(lhs, rhs) ?? 0) < 0
        case .greaterThanOrEqual:
            return ValueComparison.equal(lhs, rhs) || (ValueComparison.order(lhs, rhs) ?? 0) > 0
        }
    }

    private static func compareInstant(_ value: JSONValue, _ op: ComparisonOperator, _ instant: Int64) -> Bool {
        guard case .string(let text) = value, let fieldInstant = Timestamp.milliseconds(from: text) else {
            return op == .notEqual
        }
        return evaluate(.int(fieldInstant), op, .int(instant))
    }

    private static func stringMatches(_ value: String, _ match: StringMatch, _ text: String) -> Bool {
        let haystack = Array(value.utf8), needle = Array(text.utf8)
        guard needle.count <= haystack.count else { return false }
        switch match {
        case .hasPrefix: return haystack.starts(with: needle)
        case .hasSuffix: return haystack.suffix(needle.count).elementsEqual(needle)
        case .contains:
            if needle.isEmpty { return true }
            for start in 0...(haystack.count - needle.count)
            where haystack[start] == needle[0] && haystack[start..<(start + needle.count)].elementsEqual(needle) {
                return true
            }
            return false
        }
    }
}
