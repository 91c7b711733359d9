import Foundation
import OfflineSync

/// Reads a ``Filter`` from OData `$filter` text as a user types it on the command line, the syntax that
/// ``Filter/odata`` writes: `field eq value` (with `ne`, `lt`, `le`, `gt`, `ge`), `and`, `or`, `not`, parentheses,
/// `startswith(field,'text')`, `endswith(field,'text')`, `contains(field,'text')` or `substringof('text',field)`.
/// Values are `null`, `true`, `false`, numbers, `'strings'` (a quote doubled inside) and
/// `datetimeoffset'2026-01-01T00:00:00Z'` (an instant). `and` binds tighter than `or`.
struct FilterText {
    /// Why a text is not a filter, with the character where reading stopped (counted from 1).
    struct Malformed: Error, Sendable, Equatable, CustomStringConvertible {
        var message: String
        var column: Int
        var description: String { "malformed filter at character \(column): \(message)" }
    }

    private enum Token: Equatable {
        case open, close, comma
        case word(String)
        case string(String)
        case number(JSONValue)
        case date(String)
    }

    private let tokens: [(token: Token, column: Int)]
    private let endColumn: Int
    private var position = 0

    /// The filter `text` spells.
    /// - Throws: ``Malformed`` naming the first problem.
    static func parse(_ text: String) throws(Malformed) -> Filter {
        let scalars = Array(text.unicodeScalars)
        var reader = FilterText(tokens: try tokenize(scalars), endColumn: scalars.count + 1)
        let filter = try reader.disjunction()
        if let (token, column) = reader.peek() {
            throw Malformed(message: "unexpected \(describe(token)) after a complete filter (join conditions with 'and' or 'or')",
                            column: column)
        }
        return filter
    }

    private init(tokens: [(token: Token, column: Int)], endColumn: Int) {
        self.tokens = tokens
        self.endColumn = endColumn
    }

    // MARK: Grammar

    private mutating func disjunction() throws(Malformed) -> Filter {
        var filter = try conjunction()
        while peekWord("or") {
            position += 1
            filter = filter || (try conjunction())
        }
        return filter
    }

    private mutating func conjunction() throws(Malformed) -> Filter {
        var filter = try condition()
        while peekWord("and") {
            position += 1
            filter = filter && (try condition())
        }
        return filter
    }

    private mutating func condition() throws(Malformed) -> Filter {
        let (token, column) = try next(expecting: "a condition")
        switch token {
        case .open:
            let inner = try disjunction()
            try expect(.close, "')'")
            return inner
        case .word("not"):
            return !(try condition())
        case .word(let function) where ["startswith", "endswith", "contains"].contains(function) && peek()?.token == .open:
            position += 1
            let field = try fieldName()
            try expect(.comma, "','")
            let text = try stringLiteral()
            try expect(.close, "')'")
            switch function {
            case "startswith": return field.hasPrefix(text)
            case "endswith": return field.hasSuffix(text)
            default: return field.contains(text)
            }
        case .word("substringof") where peek()?.token == .open:
            position += 1
            let text = try stringLiteral()
            try expect(.comma, "','")
            let field = try fieldName()
            try expect(.close, "')'")
            return field.contains(text)
        case .word(let name):
            guard Field(name).isValidIdentifier, !Self.keywords.contains(name) else {
                throw Malformed(message: "'\(name)' is not a field name", column: column)
            }
            let (opToken, opColumn) = try next(expecting: "a comparison (eq, ne, lt, le, gt, ge) after '\(name)'")
            guard case .word(let opName) = opToken, let op = ComparisonOperator(rawValue: opName) else {
                throw Malformed(message: "expected a comparison (eq, ne, lt, le, gt, ge) after '\(name)', found \(Self.describe(opToken))",
                                column: opColumn)
            }
            let (valueToken, valueColumn) = try next(expecting: "a value after '\(name) \(opName)'")
            switch valueToken {
            case .word("null"): return .comparison(Field(name), op, .null)
            case .word("true"): return .comparison(Field(name), op, .bool(true))
            case .word("false"): return .comparison(Field(name), op, .bool(false))
            case .number(let number): return .comparison(Field(name), op, number)
            case .string(let text): return .comparison(Field(name), op, .string(text))
            case .date(let text):
                guard let date = Timestamp.date(from: text) else {
                    throw Malformed(message: "'\(text)' is not an ISO 8601 date-time such as 2026-01-01T00:00:00Z", column: valueColumn)
                }
                return .dateComparison(Field(name), op, date)
            default:
                throw Malformed(message: "expected a value (null, true, false, a number, 'text' or datetimeoffset'…') "
                    + "after '\(name) \(opName)', found \(Self.describe(valueToken))", column: valueColumn)
            }
        default:
            throw Malformed(message: "expected a condition such as `complete eq false`, found \(Self.describe(token))", column: column)
        }
    }

    private static let keywords: Set<String> = ["and", "or", "not", "null", "true", "false", "eq", "ne", "lt", "le", "gt", "ge"]

    private mutating func fieldName() throws(Malformed) -> Field {
        let (token, column) = try next(expecting: "a field name")
        guard case .word(let name) = token, Field(name).isValidIdentifier, !Self.keywords.contains(name) else {
            throw Malformed(message: "expected a field name, found \(Self.describe(token))", column: column)
        }
        return Field(name)
    }

    private mutating func stringLiteral() throws(Malformed) -> String {
        let (token, column) = try next(expecting: "a 'quoted' text")
        guard case .string(let text) = token else {
            throw Malformed(message: "expected a 'quoted' text, found \(Self.describe(token))", column: column)
        }
        return text
    }

    private mutating func expect(_ expected: Token, _ name: String) throws(Malformed) {
        let (token, column) = try next(expecting: name)
        guard token == expected else { throw Malformed(message: "expected \(name), found \(Self.describe(token))", column: column) }
    }

    private func peek() -> (token: Token, column: Int)? {
        position < tokens.count ? tokens[position] : nil
    }

    private func peekWord(_ word: String) -> Bool {
        peek()?.token == .word(word)
    }

    private mutating func next(expecting what: String) throws(Malformed) -> (token: Token, column: Int) {
        guard let token = peek() else { throw Malformed(message: "expected \(what), found the end of the filter", column: endColumn) }
        position += 1
        return token
    }

    private static func describe(_ token: Token) -> String {
        switch token {
        case .open: return "'('"
        case .close: return "')'"
        case .comma: return "','"
        case .word(let word): return "'\(word)'"
        case .string(let text): return "the text '\(text)'"
        case .number(let number): return "the number \(number.jsonString(sortedKeys: true))"
        case .date(let text): return "the date '\(text)'"
        }
    }

    // MARK: Tokens

    private static func tokenize(_ scalars: [Unicode.Scalar]) throws(Malformed) -> [(token: Token, column: Int)] {
        var tokens: [(token: Token, column: Int)] = []
        var index = 0
        func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "_" || scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
        }
        func quoted(from start: Int) throws(Malformed) -> String {
            // scalars[start] is the opening quote; a doubled quote inside stands for one.
            var text = String.UnicodeScalarView()
            var cursor = start + 1
            while cursor < scalars.count {
                if scalars[cursor] == "'" {
                    if cursor + 1 < scalars.count, scalars[cursor + 1] == "'" {
                        text.append("'")
                        cursor += 2
                        continue
                    }
                    index = cursor + 1
                    return String(text)
                }
                text.append(scalars[cursor])
                cursor += 1
            }
            throw Malformed(message: "a quoted text is not closed (a quote inside is written twice: 'it''s')", column: start + 1)
        }
        while index < scalars.count {
            let scalar = scalars[index], column = index + 1
            switch scalar {
            case " ", "\t", "\n", "\r":
                index += 1
            case "(": tokens.append((.open, column)); index += 1
            case ")": tokens.append((.close, column)); index += 1
            case ",": tokens.append((.comma, column)); index += 1
            case "'":
                tokens.append((.string(try quoted(from: index)), column))
            case "-", "0"..."9":
                var end = index + 1
                while end < scalars.count, isWordScalar(scalars[end]) || scalars[end] == "." || scalars[end] == "+"
                        || (scalars[end] == "-" && (scalars[end - 1] == "e" || scalars[end - 1] == "E")) {
                    end += 1
                }
                let text = String(String.UnicodeScalarView(scalars[index..<end]))
                if let integer = Int64(text) {
                    tokens.append((.number(.int(integer)), column))
                } else if text.allSatisfy({ "0123456789.eE+-".contains($0) }), let double = Double(text), double.isFinite {
                    tokens.append((.number(.double(double)), column))
                } else {
                    throw Malformed(message: "'\(text)' is not a number", column: column)
                }
                index = end
            case _ where isWordScalar(scalar):
                var end = index + 1
                while end < scalars.count, isWordScalar(scalars[end]) { end += 1 }
                let word = String(String.UnicodeScalarView(scalars[index..<end]))
                index = end
                if word == "datetimeoffset", index < scalars.count, scalars[index] == "'" {
                    tokens.append((.date(try quoted(from: index)), column))
                } else {
                    tokens.append((.word(word), column))
                }
            default:
                let hint = ["=", "<", ">", "!", "&", "|"].contains(scalar) ? " (write comparisons as eq, ne, lt, le, gt, ge and join with and, or)" : ""
                throw Malformed(message: "unexpected character '\(scalar)'\(hint)", column: column)
            }
        }
        return tokens
    }
}
