/// How a ``TableProtocolServer`` orders and compares ids: by their characters (SQLite's default, the Node server's
/// test database), or case-insensitively (SQL Server's default collation).
enum IDOrder: Sendable {
    case bytes
    case caseInsensitive

    /// Whether `lhs` sorts before `rhs`.
    var precedes: @Sendable (String, String) -> Bool {
        switch self {
        case .bytes: return { $0 < $1 }
        case .caseInsensitive: return { $0.lowercased() < $1.lowercased() }
        }
    }
}
