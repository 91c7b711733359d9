import OfflineSyncCore
import Foundation

/// How ``HTTPRemote`` retries a request that failed transiently: no answer (offline, refused, timed out), a 5xx,
/// a 429, or a 408 (the server gave up waiting for the request, so it did not act on it). Exponential backoff with full jitter: the wait before attempt `n + 1` is drawn uniformly from
/// `0 ..< min(maximumDelay, initialDelay × 2ⁿ⁻¹)`; a `Retry-After` the server sends (seconds or an HTTP date) is
/// waited instead, and one longer than `maximumDelay` ends the retries. Other answers are never retried.
///
/// Retrying a write is safe: an insert that reached the server is answered 409 with the row it sent, an update
/// 412 with it, which the sync engine counts as success (Docs/Protocol.md, section 7).
public struct HTTPRetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included; 1 means no retry.
    public var maximumAttempts: Int
    /// The bound of the first wait.
    public var initialDelay: Duration
    /// The longest wait, and the longest `Retry-After` honoured.
    public var maximumDelay: Duration

    /// Creates a policy: 4 attempts, waits drawn below 0.5 s, 1 s, 2 s by default, at most 30 s.
    public init(maximumAttempts: Int = 4, initialDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(30)) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// Never retry.
    public static let none = HTTPRetryPolicy(maximumAttempts: 1)

    /// Whether an answer with `status` is worth another attempt.
    static func isTransient(status: Int) -> Bool {
        status == 408 || status == 429 || (500...599).contains(status)
    }

    /// The wait before the next attempt after `attempt` attempts (1 or more) failed transiently, or nil to give up.
    /// - Parameters:
    ///   - retryAfter: the wait the server asked for, when it did.
    ///   - unit: a uniform draw from `0 ..< 1` (the jitter).
    func delay(afterAttempt attempt: Int, retryAfter: Duration?, unit: Double) -> Duration? {
        guard attempt < maximumAttempts else { return nil }
        if let retryAfter { return retryAfter <= maximumDelay ? max(retryAfter, .zero) : nil }
        var bound = initialDelay
        for _ in 1..<attempt where bound < maximumDelay { bound *= 2 }
        return min(bound, maximumDelay) * min(max(unit, 0), 1)
    }

    /// The wait a `Retry-After` value asks for at `now`: whole seconds, or an HTTP date (IMF-fixdate); nil when it
    /// is neither.
    static func retryAfter(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(text), seconds >= 0 { return .seconds(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: text) else { return nil }
        return .milliseconds(max(0, Int64((date.timeIntervalSince(now) * 1000).rounded(.up))))
    }
}
