/// A small recursive-descent check of the OData `$filter` text OfflineSync writes (both dialects): every binary
/// node parenthesised, `not(…)`, the four string functions, literals and quoted names. Independent of the writer.
struct ODataGrammar {
    enum Token: Equatable {
        case open, close, comma, word(String), string(String), number(String), dateLiteral
    }

    /// Whether `text` is one well-formed filter.
    static func accepts(_ text: String) -> Bool {
        guard let tokens = tokenize(Array(text.unicodeScalars)) else { return false }
        var parser = ODataGrammar(tokens: tokens)
        return parser.filter() && parser.position == tokens.count
    }

    /// The string literals of `text`, in order, unquoted scalar by scalar (`''` is one quote) as a server reads
    /// them; nil when `text` does not tokenize (an unclosed literal, a character outside the grammar).
    static func stringLiterals(in text: String) -> [String]? {
        tokenize(Array(text.unicodeScalars))?.compactMap { token in
            if case .string(let literal) = token { return literal }
            return nil
        }
    }

    private let tokens: [Token]
    private var position = 0

    private init(tokens: [Token]) { self.tokens = tokens }

    private static let comparisons: Set<String> = ["eq", "ne", "lt", "le", "gt", "ge"]

    private mutating func next() -> Token? {
        guard position < tokens.count else { return nil }
        defer { position += 1 }
        return tokens[position]
    }

    private mutating func expect(_ token: Token) -> Bool { next() == token }

    private mutating func filter() -> Bool {
        switch next() {
        case .open?:
            let start = position
            if name(), case .word(let op)? = next(), Self.comparisons.contains(op), literal(), expect(.close) { return true }
            position = start
            guard filter(), case .word(let joiner)? = next(), joiner == "and" || joiner == "or", filter() else { return false }
            return expect(.close)
        case .word("not")?:
            return expect(.open) && filter() && expect(.close)
        case .word("substringof")?:
            return expect(.open) && string() && expect(.comma) && name() && expect(.close)
        case .word(let function)? where ["startswith", "endswith", "contains"].contains(function):
            return expect(.open) && name() && expect(.comma) && string() && expect(.close)
        default:
            return false
        }
    }

    private mutating func name() -> Bool {
        switch next() {
        case .word(let word)?: return !Self.comparisons.contains(word) && !["and", "or", "not"].contains(word)
        case .string?: return true
        default: return false
        }
    }

    private mutating func string() -> Bool {
        if case .string? = next() { return true }
        return false
    }

    private mutating func literal() -> Bool {
        switch next() {
        case .word(let word)?: return ["null", "true", "false"].contains(word)
        case .number?, .string?, .dateLiteral?: return true
        default: return false
        }
    }

    private static func tokenize(_ scalars: [Unicode.Scalar]) -> [Token]? {
        var tokens: [Token] = []
        var index = 0
        func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
            (scalar.value >= 0x61 && scalar.value <= 0x7A) || (scalar.value >= 0x41 && scalar.value <= 0x5A)
                || (scalar.value >= 0x30 && scalar.value <= 0x39) || scalar == "_" || scalar == "."
        }
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case " ": index += 1
            case "(": tokens.append(.open); index += 1
            case ")": tokens.append(.close); index += 1
            case ",": tokens.append(.comma); index += 1
            case "'":
                var text = "", closed = false
                index += 1
                while index < scalars.count {
                    if scalars[index] == "'" {
                        if index + 1 < scalars.count, scalars[index + 1] == "'" { text.unicodeScalars.append("'"); index += 2; continue }
                        closed = true
                        index += 1
                        break
                    }
                    text.unicodeScalars.append(scalars[index])
                    index += 1
                }
                guard closed else { return nil }
                tokens.append(.string(text))
            case "-", "0"..."9":
                var text = String(scalar)
                index += 1
                while index < scalars.count, "0123456789.eE+-".unicodeScalars.contains(scalars[index]) {
                    text.unicodeScalars.append(scalars[index])
                    index += 1
                }
                guard Double(text) != nil else { return nil }
                tokens.append(.number(text))
            default:
                guard isWordScalar(scalar) else { return nil }
                var word = ""
                while index < scalars.count, isWordScalar(scalars[index]) { word.unicodeScalars.append(scalars[index]); index += 1 }
                if word == "datetimeoffset", index < scalars.count, scalars[index] == "'" {
                    guard let end = scalars[(index + 1)...].firstIndex(of: "'") else { return nil }
                    index = end + 1
                    tokens.append(.dateLiteral)
                } else if word == "cast", index < scalars.count, scalars[index] == "(" {
                    guard let end = scalars[index...].firstIndex(of: ")"),
                          String(String.UnicodeScalarView(scalars[index..<end])).hasSuffix(",Edm.DateTimeOffset") else { return nil }
                    index = end + 1
                    tokens.append(.dateLiteral)
                } else {
                    tokens.append(.word(word))
                }
            }
        }
        return tokens
    }
}
