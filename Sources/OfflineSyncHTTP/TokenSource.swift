import OfflineSyncCore
/// The token of an ``HTTPRemote``'s requests: none, a fixed one, or one from an ``AuthenticationProvider`` that is
/// refreshed once when the server answers 401, with one refresh shared by the requests that met the 401 together.
actor TokenSource {
    /// A token and the generation it belongs to (bumped by each refresh).
    struct Token: Sendable {
        var value: String?
        var generation: Int
    }

    private let provider: (any AuthenticationProvider)?
    private let fixed: String?
    private var current: Token?
    private var pending: Task<Token, any Error>?

    /// A source of a fixed token, or of none.
    init(fixed: String?) {
        self.fixed = fixed
        self.provider = nil
    }

    /// A source asking `provider`.
    init(provider: any AuthenticationProvider) {
        self.fixed = nil
        self.provider = provider
    }

    /// Whether a 401 can be answered by refreshing the token.
    nonisolated var refreshes: Bool { provider != nil }

    /// Whether requests carry a token.
    nonisolated var hasToken: Bool { provider != nil || fixed != nil }

    /// The token for the next request.
    func token() async throws -> Token {
        guard let provider else { return Token(value: fixed, generation: 0) }
        if let current { return current }
        return try await shared(generation: 0) { try await provider.token(refresh: false) }
    }

    /// A token newer than `stale` (which met a 401): refreshed once for every request that met a 401 with it.
    func refreshed(after stale: Token) async throws -> Token {
        guard let provider else { return stale }
        if let current, current.generation > stale.generation { return current }
        return try await shared(generation: stale.generation + 1) { try await provider.token(refresh: true) }
    }

    /// Runs `ask` once for every caller waiting meanwhile, and keeps its token as the current one.
    private func shared(generation: Int, _ ask: @escaping @Sendable () async throws -> String) async throws -> Token {
        if let pending { return try await pending.value }
        let task = Task { Token(value: try await ask(), generation: generation) }
        pending = task
        defer { pending = nil }
        let token = try await task.value
        current = token
        return token
    }
}
