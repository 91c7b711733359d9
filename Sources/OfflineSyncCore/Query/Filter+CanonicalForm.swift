#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Filter {
    /// A deterministic text of the filter's value, independent of any wire format: equal filters give equal text,
    /// and filters that differ in a field, an operator, a literal, a literal's type or their structure (other than
    /// the grouping of a chain of `and`s or of `or`s) give different text. The engine keys delta tokens by its hash
    /// (Docs/Architecture.md, "The engine's tables").
    ///
    /// The text is compact JSON (``JSONWriter``, no spaces), one array per node, its first element naming the node:
    /// - `["cmp",field,op,literal]` for ``comparison(_:_:_:)``, `op` one of `"eq" "ne" "lt" "le" "gt" "ge"`;
    /// - `["date",field,op,milliseconds]` for ``dateComparison(_:_:_:)``, the instant as whole milliseconds since
    ///   1970 (an integer), the precision every comparison of it uses;
    /// - `["str",field,match,text]` for ``string(_:_:_:)``, `match` one of `"contains" "hasPrefix" "hasSuffix"`;
    /// - `["and",node,node,…]` and `["or",node,node,…]`: nested nodes of the same kind are flattened into one, in
    ///   order, since grouping never changes what `and` or `or` select (`(a && b) && c` and `a && (b && c)` give
    ///   `["and",a,b,c]`); operands are never reordered, and nothing else is rewritten;
    /// - `["not",node]`.
    ///
    /// A literal carries its type: `["null"]`, `["bool",true]`, `["int",1]`, `["double","3ff0000000000000"]` (the
    /// IEEE 754 binary64 bits as 16 lower-case hex digits, so that no number formatting is involved),
    /// `["string","…"]`, `["array",[literal,…]]`, `["object",[[key,literal],…]]` with the keys in the byte order of
    /// their UTF-8. Field names and texts are JSON strings, escaped as ``JSONWriter`` escapes them, their Unicode
    /// scalars kept as they are (`"é"` and `"e\u{301}"`, equal as Swift strings, are different texts: stores and
    /// servers compare strings by scalars). Compare forms by their UTF-8, as the digest does, never with `==` on
    /// `String`, which holds such texts equal.
    package var canonicalForm: String {
        var bytes: [UInt8] = []
        JSONWriter().write(canonicalValue, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The node as a JSON value; see ``canonicalForm``.
    private var canonicalValue: JSONValue {
        switch self {
        case .comparison(let field, let op, let value):
            return ["cmp", .string(field.name), .string(Filter.canonicalName(op)), Filter.canonicalLiteral(value)]
        case .dateComparison(let field, let op, let date):
            return ["date", .string(field.name), .string(Filter.canonicalName(op)), .int(Timestamp.milliseconds(of: date))]
        case .string(let field, let match, let text):
            return ["str", .string(field.name), .string(Filter.canonicalName(match)), .string(text)]
        case .and:
            return .array(["and"] + andOperands.map(\.canonicalValue))
        case .or:
            return .array(["or"] + orOperands.map(\.canonicalValue))
        case .not(let inner):
            return ["not", inner.canonicalValue]
        }
    }

    /// The operands of a chain of `and` nodes, left to right, whatever their grouping.
    private var andOperands: [Filter] {
        if case .and(let lhs, let rhs) = self { return lhs.andOperands + rhs.andOperands }
        return [self]
    }

    /// The operands of a chain of `or` nodes, left to right, whatever their grouping.
    private var orOperands: [Filter] {
        if case .or(let lhs, let rhs) = self { return lhs.orOperands + rhs.orOperands }
        return [self]
    }

    private static func canonicalName(_ op: ComparisonOperator) -> String {
        switch op {
        case .equal: return "eq"
        case .notEqual: return "ne"
        case .lessThan: return "lt"
        case .lessThanOrEqual: return "le"
        case .greaterThan: return "gt"
        case .greaterThanOrEqual: return "ge"
        }
    }

    private static func canonicalName(_ match: StringMatch) -> String {
        switch match {
        case .contains: return "contains"
        case .hasPrefix: return "hasPrefix"
        case .hasSuffix: return "hasSuffix"
        }
    }

    private static func canonicalLiteral(_ value: JSONValue) -> JSONValue {
        switch value {
        case .null: return ["null"]
        case .bool(let flag): return ["bool", .bool(flag)]
        case .int(let number): return ["int", .int(number)]
        case .double(let number):
            let hex = String(number.bitPattern, radix: 16)
            return ["double", .string(String(repeating: "0", count: 16 - hex.count) + hex)]
        case .string(let text): return ["string", .string(text)]
        case .array(let elements): return ["array", .array(elements.map(canonicalLiteral))]
        case .object(let object):
            let keys = object.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            return ["object", .array(keys.map { key in [.string(key), canonicalLiteral(object[key] ?? .null)] })]
        }
    }
}
