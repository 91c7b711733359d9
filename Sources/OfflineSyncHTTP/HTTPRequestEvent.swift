import OfflineSyncCore
public import Foundation

/// One request ``HTTPRemote`` sent and how it ended, for logs and metrics (``HTTPRequestHook``). It never holds the
/// token or any header; bodies only when the hook asks for them.
public struct HTTPRequestEvent: Sendable, Hashable, CustomStringConvertible {
    /// `GET`, `POST`, `PATCH`, `PUT` or `DELETE`.
    public var method: String
    /// The request's URL.
    public var url: URL
    /// The answer's status; nil when no answer came (see ``failure``).
    public var statusCode: Int?
    /// From sending to the whole answer (or the failure).
    public var duration: Duration
    /// The request body's size in bytes.
    public var requestBytes: Int
    /// The answer body's size in bytes.
    public var responseBytes: Int
    /// 1 for the first attempt, 2 and up for retries and the resend after a token refresh.
    public var attempt: Int
    /// Why no answer came (offline, timed out, …); nil when one came.
    public var failure: String?
    /// The request body, when the hook asked for bodies.
    public var requestBody: [UInt8]?
    /// The answer body, when the hook asked for bodies.
    public var responseBody: [UInt8]?

    /// `PATCH https://host/tables/T/a → 412 in 23 ms (120 B out, 310 B in)`.
    public var description: String {
        let outcome = statusCode.map(String.init) ?? "no answer (\(failure ?? "failed"))"
        let milliseconds = Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
        let retry = attempt > 1 ? ", attempt \(attempt)" : ""
        return "\(method) \(url.absoluteString) → \(outcome) in \(Int(milliseconds.rounded())) ms "
            + "(\(requestBytes) B out, \(responseBytes) B in\(retry))"
    }
}

/// Sees every request of an ``HTTPRemote`` once it ended: route the events to `os.Logger`, swift-log or metrics.
///
/// ```swift
/// let hook = HTTPRequestHook { event in logger.debug("\(event)") }
/// let remote = HTTPRemote(baseURL: url, authToken: token,
///                         configuration: HTTPRemoteConfiguration(requestHook: hook))
/// ```
/// The handler runs on the task that made the request, so it should be quick.
public struct HTTPRequestHook: Sendable, Hashable {
    /// Whether events carry the request and answer bodies (which may hold personal data).
    public var includesBodies: Bool
    let handler: @Sendable (HTTPRequestEvent) -> Void
    private let identity = UUID()

    /// A hook calling `handler` for each request.
    public init(includesBodies: Bool = false, _ handler: @escaping @Sendable (HTTPRequestEvent) -> Void) {
        self.includesBodies = includesBodies
        self.handler = handler
    }

    /// Hooks are equal when they are the same hook.
    public static func == (lhs: HTTPRequestHook, rhs: HTTPRequestHook) -> Bool { lhs.identity == rhs.identity }

    /// Hashes the hook's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(identity) }
}
