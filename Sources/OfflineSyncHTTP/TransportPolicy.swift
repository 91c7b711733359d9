import OfflineSyncCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The checks ``HTTPRemote`` makes before sending, and how transport failures become ``RemoteError/network(_:)``.
enum TransportPolicy {
    /// Throws when the base URL is not http(s) with a host, a header value holds a control character, or a token
    /// would go over plain `http` to a host that is not a loopback address (unless allowed).
    static func check(baseURL: URL, authToken: String?, configuration: HTTPRemoteConfiguration) throws(HTTPRemoteError) {
        guard let scheme = baseURL.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = baseURL.host, !host.isEmpty
        else { throw HTTPRemoteError.unsupportedBaseURL(baseURL.absoluteString) }
        if let authToken, !isHeaderSafe(authToken) { throw HTTPRemoteError.invalidHeaderValue(name: "auth token") }
        if !isHeaderSafe(configuration.installationID) {
            throw HTTPRemoteError.invalidHeaderValue(name: "installation id")
        }
        for (name, value) in configuration.additionalHeaders where !isHeaderName(name) || !isHeaderSafe(value) {
            throw HTTPRemoteError.invalidHeaderValue(name: isHeaderName(name) ? name : "additional header")
        }
        if authToken != nil, scheme == "http", !configuration.allowsInsecureToken, !isLoopback(host) {
            throw HTTPRemoteError.insecureTokenTransport(host: host)
        }
    }

    /// Whether `host` names this machine: `localhost`, `127.x.y.z` or `::1`.
    static func isLoopback(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in part.count <= 3 && UInt8(part) != nil }
    }

    /// The headers of the protocol that ``HTTPRemoteConfiguration/additionalHeaders`` never sets (lower-cased).
    static let protocolHeaders: Set<String> = ["zumo-api-version", "x-zumo-auth", "authorization", "if-match",
                                               "content-type", "x-zumo-features", "x-zumo-installation-id"]

    /// Whether `name` can be a header name: 1 to 256 letters, digits and `!#$%&'*+-.^_`|~`.
    static func isHeaderName(_ name: String) -> Bool {
        let allowed = Set("!#$%&'*+-.^_`|~".unicodeScalars)
        return (1...256).contains(name.unicodeScalars.count) && name.unicodeScalars.allSatisfy { scalar in
            (scalar.value >= 0x30 && scalar.value <= 0x39) || (scalar.value >= 0x41 && scalar.value <= 0x5A)
                || (scalar.value >= 0x61 && scalar.value <= 0x7A) || allowed.contains(scalar)
        }
    }

    /// Whether `value` can be a header value: no control characters (so no line breaks).
    static func isHeaderSafe(_ value: String) -> Bool {
        !value.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// The error a failed `URLSession` call stands for: `CancellationError` when the task was cancelled, else
    /// ``RemoteError/network(_:)`` naming the request (never its headers).
    static func networkError(_ error: any Error, request: HTTPTableRequest, timeout: Double) -> any Error {
        networkError(error, summary: request.summary, timeout: timeout)
    }

    /// ``networkError(_:request:timeout:)`` for a request `summary` names.
    static func networkError(_ error: any Error, summary: String, timeout: Double) -> any Error {
        if error is CancellationError { return error }
        guard let urlError = error as? URLError else {
            return RemoteError.network("\(summary) failed: \(error).")
        }
        let reason: String
        switch urlError.code {
        case .cancelled:
            return Task.isCancelled ? CancellationError() : RemoteError.network("\(summary) was cancelled.")
        case .timedOut:
            reason = "timed out after \(timeout.formatted(.number.precision(.fractionLength(0...3)))) s"
        case .notConnectedToInternet: reason = "failed: the device is offline"
        case .cannotFindHost, .dnsLookupFailed: reason = "failed: the host name could not be resolved"
        case .cannotConnectToHost: reason = "failed: the server refused the connection"
        case .networkConnectionLost: reason = "failed: the connection was lost"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            reason = "failed: the TLS connection could not be established"
        default: reason = "failed (URLError \(urlError.code.rawValue))"
        }
        return RemoteError.network("\(summary) \(reason).")
    }
}
