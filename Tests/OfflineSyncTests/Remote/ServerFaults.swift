import OfflineSyncTesting

/// Faults a ``TableProtocolServer`` injects, drawn from a seeded generator: requests refused with 503 before the
/// server acts, answers replaced by a 503 after it acted (the client cannot tell whether the write happened), and
/// tokens that expire: the server accepts only `t<epoch>`, the epoch moves on every `tokenLifetime` requests, and
/// `GET /token` (a sign-in service, no token needed) hands out the current one.
struct ServerFaults: Sendable {
    /// One request in `unavailableOneIn` is refused with 503 before the server acts; 0 for none.
    let unavailableOneIn: Int
    /// One answer in `answerLostOneIn` is replaced by a 503 after the server acted; 0 for none.
    let answerLostOneIn: Int
    /// Requests a token stays valid for; 0 for tokens that never expire.
    let tokenLifetime: Int

    private var random: SplitMix64
    private var requests = 0
    /// How many requests each fault hit.
    private(set) var unavailable = 0, lostAnswers = 0, unauthorized = 0

    init(seed: UInt64, unavailableOneIn: Int, answerLostOneIn: Int, tokenLifetime: Int) {
        self.unavailableOneIn = unavailableOneIn
        self.answerLostOneIn = answerLostOneIn
        self.tokenLifetime = tokenLifetime
        random = SplitMix64(seed: seed)
    }

    /// The token the server accepts now.
    var currentToken: String { "t\(tokenLifetime > 0 ? requests / tokenLifetime : 0)" }

    /// Decides the fate of the next table request that carried `token`: refused (401 or 503) before acting, or
    /// acted on and then answered or not.
    mutating func next(token: String?) -> Fate {
        requests += 1
        if tokenLifetime > 0, token != currentToken {
            unauthorized += 1
            return .unauthorized
        }
        if unavailableOneIn > 0, random.next() % UInt64(unavailableOneIn) == 0 {
            unavailable += 1
            return .unavailable
        }
        if answerLostOneIn > 0, random.next() % UInt64(answerLostOneIn) == 0 {
            lostAnswers += 1
            return .actThenFail
        }
        return .act
    }

    /// What happens to one request.
    enum Fate { case act, actThenFail, unavailable, unauthorized }
}
