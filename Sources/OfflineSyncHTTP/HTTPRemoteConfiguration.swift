import OfflineSyncCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Settings of an ``HTTPRemote`` beyond its base URL, version and token.
///
/// ```swift
/// let remote = HTTPRemote(baseURL: url, apiVersion: .v3, authToken: token,
///                         configuration: HTTPRemoteConfiguration(timeout: .seconds(20)))
/// ```
public struct HTTPRemoteConfiguration: Sendable, Hashable {
    /// How long one request may wait for the server before it fails with ``RemoteError/network(_:)``.
    public var timeout: Duration
    /// Whether a token may be sent over plain `http` to a host that is not a loopback address. Leave it `false`
    /// outside development: anyone on the path can read the token.
    public var allowsInsecureToken: Bool
    /// The `X-ZUMO-INSTALLATION-ID` header value; see ``InstallationID``.
    public var installationID: String
    /// Headers sent with every request. They cannot replace the protocol's own (`ZUMO-API-VERSION`, the auth
    /// header, `If-Match`, `Content-Type` and the others the request sets), which win.
    public var additionalHeaders: [String: String] = [:]
    /// How transient failures are retried; ``HTTPRetryPolicy/none`` to never retry.
    public var retryPolicy = HTTPRetryPolicy()
    /// Sees every request once it ended; nil for none.
    public var requestHook: HTTPRequestHook?
    /// The most bytes the body of one table answer may hold; a larger one is cut off as it arrives and the call
    /// fails with ``RemoteError/invalidResponse(_:)``. `$top` only asks a server for fewer records, so this bounds
    /// the memory a broken or hostile server can take. ``defaultMaximumResponseBytes`` (64 MiB) by default, a page of
    /// 1,000 records of 64 KiB each. Attachment files are not bounded by it. Zero or less refuses every answer
    /// with a body.
    public var maximumResponseBytes = HTTPRemoteConfiguration.defaultMaximumResponseBytes

    /// The default of ``maximumResponseBytes``: 64 MiB.
    public static let defaultMaximumResponseBytes = 64 << 20

    /// Creates a configuration.
    /// - Parameters:
    ///   - timeout: the per-request timeout; 60 seconds by default.
    ///   - allowsInsecureToken: allow a token over plain `http` to a non-loopback host; `false` by default.
    ///   - installationID: the installation id; ``InstallationID/current`` by default.
    public init(timeout: Duration = .seconds(60), allowsInsecureToken: Bool = false,
                installationID: String = InstallationID.current) {
        self.timeout = timeout
        self.allowsInsecureToken = allowsInsecureToken
        self.installationID = installationID
    }

    /// Creates a configuration with headers, a retry policy and a request hook.
    /// - Parameters:
    ///   - timeout: the per-request timeout; 60 seconds by default.
    ///   - allowsInsecureToken: allow a token over plain `http` to a non-loopback host; `false` by default.
    ///   - installationID: the installation id; ``InstallationID/current`` by default.
    ///   - additionalHeaders: headers sent with every request (the protocol's own win).
    ///   - retryPolicy: how transient failures are retried.
    ///   - requestHook: sees every request once it ended.
    public init(timeout: Duration = .seconds(60), allowsInsecureToken: Bool = false,
                installationID: String = InstallationID.current, additionalHeaders: [String: String] = [:],
                retryPolicy: HTTPRetryPolicy = HTTPRetryPolicy(), requestHook: HTTPRequestHook? = nil) {
        self.init(timeout: timeout, allowsInsecureToken: allowsInsecureToken, installationID: installationID)
        self.additionalHeaders = additionalHeaders
        self.retryPolicy = retryPolicy
        self.requestHook = requestHook
    }

    /// ``timeout`` in seconds, at least one millisecond.
    var timeoutInterval: Double {
        let components = timeout.components
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        return max(seconds, 0.001)
    }
}
