#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A condition on items, evaluated locally by ``matches(_:)`` and sent to servers as OData by ``odata`` (written by
/// the remote layer).
///
/// Build filters with operators on ``Field``:
/// ```swift
/// Field("complete") == false
/// Field("priority") >= 3 && !(Field("text").contains("milk"))
/// Field("updatedAt") > "2026-01-01T00:00:00.000Z" || Field("owner").isNull
/// Field("dueAt") < Date()          // compared as an instant
/// ```
/// Comparison semantics are the same locally and on the server: numbers compare numerically (an int with a
/// double too), strings by Unicode scalar order, `null` equals only `null`, a missing field is `null`, and
/// values of different kinds are unequal and never ordered. A string compared with `createdAt` or `updatedAt`
/// that reads as a timestamp is a point in time: a date literal on the wire and an instant locally.
public indirect enum Filter: Sendable, Hashable {
    /// `field op value`.
    case comparison(Field, ComparisonOperator, JSONValue)
    /// `field op date`, comparing instants; the field holds an ISO 8601 string.
    case dateComparison(Field, ComparisonOperator, Date)
    /// A case-sensitive string test on `field`.
    case string(Field, StringMatch, String)
    /// Both filters hold.
    case and(Filter, Filter)
    /// Either filter holds.
    case or(Filter, Filter)
    /// The filter does not hold.
    case not(Filter)

    /// Every field name the filter mentions, in order of appearance.
    public var fieldNames: [String] {
        switch self {
        case .comparison(let field, _, _), .dateComparison(let field, _, _), .string(let field, _, _):
            return [field.name]
        case .and(let lhs, let rhs), .or(let lhs, let rhs):
            return lhs.fieldNames + rhs.fieldNames
        case .not(let inner):
            return inner.fieldNames
        }
    }

    /// Throws ``QueryError/invalidFieldName(_:)`` when a field name is not a valid identifier
    /// (see ``Field/isValidIdentifier``), so it cannot be sent to a server.
    public func validate() throws(QueryError) {
        for name in fieldNames where !Field.isValidIdentifier(name) {
            throw QueryError.invalidFieldName(name)
        }
    }
}

// MARK: - Building filters

/// `field == value`.
public func == (field: Field, value: JSONValue) -> Filter { .comparison(field, .equal, value) }
/// `field != value`.
public func != (field: Field, value: JSONValue) -> Filter { .comparison(field, .notEqual, value) }
/// `field < value`.
public func < (field: Field, value: JSONValue) -> Filter { .comparison(field, .lessThan, value) }
/// `field <= value`.
public func <= (field: Field, value: JSONValue) -> Filter { .comparison(field, .lessThanOrEqual, value) }
/// `field > value`.
public func > (field: Field, value: JSONValue) -> Filter { .comparison(field, .greaterThan, value) }
/// `field >= value`.
public func >= (field: Field, value: JSONValue) -> Filter { .comparison(field, .greaterThanOrEqual, value) }

/// `field == date`, as instants.
public func == (field: Field, date: Date) -> Filter { .dateComparison(field, .equal, date) }
/// `field != date`, as instants.
public func != (field: Field, date: Date) -> Filter { .dateComparison(field, .notEqual, date) }
/// `field < date`, as instants.
public func < (field: Field, date: Date) -> Filter { .dateComparison(field, .lessThan, date) }
/// `field <= date`, as instants.
public func <= (field: Field, date: Date) -> Filter { .dateComparison(field, .lessThanOrEqual, date) }
/// `field > date`, as instants.
public func > (field: Field, date: Date) -> Filter { .dateComparison(field, .greaterThan, date) }
/// `field >= date`, as instants.
public func >= (field: Field, date: Date) -> Filter { .dateComparison(field, .greaterThanOrEqual, date) }

/// Both filters hold.
public func && (lhs: Filter, rhs: Filter) -> Filter { .and(lhs, rhs) }
/// Either filter holds.
public func || (lhs: Filter, rhs: Filter) -> Filter { .or(lhs, rhs) }
/// The filter does not hold.
public prefix func ! (filter: Filter) -> Filter { .not(filter) }

extension Field {
    /// The field is a string containing `text` (case-sensitive).
    public func contains(_ text: String) -> Filter { .string(self, .contains, text) }
    /// The field is a string starting with `text` (case-sensitive).
    public func hasPrefix(_ text: String) -> Filter { .string(self, .hasPrefix, text) }
    /// The field is a string ending with `text` (case-sensitive).
    public func hasSuffix(_ text: String) -> Filter { .string(self, .hasSuffix, text) }
    /// The field is `null` or missing.
    public var isNull: Filter { .comparison(self, .equal, .null) }
}
