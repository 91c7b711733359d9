#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Filter {
    /// The OData `$filter` text the Azure Mobile Apps v2 client sends for this filter (not yet percent-encoded).
    ///
    /// Every binary node is parenthesised: `(text eq 'bob')`, `((a eq 1) and not((b eq null)))`,
    /// `startswith(text,'a')`, `substringof('a',text)`. Every quote in a string is doubled, scalar by scalar (also one
    /// fused with a combining mark into one `Character`). Dates, and strings compared
    /// with `createdAt`/`updatedAt`, become `datetimeoffset'2026-01-01T00:00:00.000Z'`.
    /// A field name that is not a valid identifier is never interpolated: it is written as a quoted string
    /// literal, which matches nothing on the server. Call ``validate()`` first to get an error instead.
    public var odata: String { odata(.odataV3) }

    /// The `$filter` text for `dialect` (not yet percent-encoded); see ``odata``.
    public func odata(_ dialect: ODataDialect) -> String {
        switch self {
        case .comparison(let field, let op, let value):
            let literal: String
            if case .string(let text) = value, Filter.isTimestampField(field.name),
               let milliseconds = Timestamp.milliseconds(from: text) {
                literal = Filter.dateLiteral(milliseconds, dialect)
            } else {
                literal = Filter.literal(value)
            }
            return "(\(Filter.fieldName(field)) \(op.rawValue) \(literal))"
        case .dateComparison(let field, let op, let date):
            let literal = Filter.dateLiteral(Timestamp.milliseconds(of: date), dialect)
            return "(\(Filter.fieldName(field)) \(op.rawValue) \(literal))"
        case .string(let field, let match, let text):
            let name = Filter.fieldName(field), quoted = Filter.quoted(text)
            switch (match, dialect) {
            case (.contains, .odataV3): return "substringof(\(quoted),\(name))"
            case (.contains, .odataV4): return "contains(\(name),\(quoted))"
            case (.hasPrefix, _): return "startswith(\(name),\(quoted))"
            case (.hasSuffix, _): return "endswith(\(name),\(quoted))"
            }
        case .and(let lhs, let rhs):
            return "(\(lhs.odata(dialect)) and \(rhs.odata(dialect)))"
        case .or(let lhs, let rhs):
            return "(\(lhs.odata(dialect)) or \(rhs.odata(dialect)))"
        case .not(let inner):
            return "not(\(inner.odata(dialect)))"
        }
    }

    private static func fieldName(_ field: Field) -> String {
        field.isValidIdentifier ? field.name : quoted(field.name)
    }

    /// `text` as an OData string literal: in quotes, every quote doubled. Quotes are found scalar by scalar, as a
    /// server reads the literal: a quote fused into one `Character` with a combining mark after it (`'\u{301}`) or
    /// a prepend character before it (`\u{600}'`) is a quote all the same, and left single it would end the literal.
    private static func quoted(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        result.append("'")
        for scalar in text.unicodeScalars {
            result.append(scalar)
            if scalar == "'" { result.append("'") }
        }
        result.append("'")
        return String(result)
    }

    private static func dateLiteral(_ milliseconds: Int64, _ dialect: ODataDialect) -> String {
        let text = Timestamp.string(fromMilliseconds: milliseconds)
        switch dialect {
        case .odataV3: return "datetimeoffset'\(text)'"
        case .odataV4: return "cast(\(text),Edm.DateTimeOffset)"
        }
    }

    /// An OData literal for a JSON value. Arrays and objects have no OData literal; they are written as their
    /// JSON text in quotes, which matches nothing on a server.
    private static func literal(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .double(let number):
            guard number.isFinite else { return "null" }
            let text = number.description
            return text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? text : text + ".0"
        case .string(let text): return quoted(text)
        case .array, .object: return quoted(value.jsonString(sortedKeys: true))
        }
    }
}
