import OfflineSyncCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Resolves the `nextLink` of a v3 page: an absolute URL, a path with a query, or a bare query string.
enum NextLink {
    /// The URL of `link` for the table at `tableURL` (no query, no trailing slash):
    /// - `https://host/tables/t?$skip=100` stays as it is;
    /// - `/tables/t?$skip=100` keeps the scheme, host and port of `tableURL`;
    /// - `$skip=100` or `?$skip=100` (the Toolkit server's form) is appended to `tableURL` after `?`, not resolved
    ///   as a relative URL (which would replace the last path segment).
    /// Characters that cannot appear in a URL (spaces, quotes) are percent-encoded. Nil for an empty link or one
    /// that does not make a URL.
    static func resolve(_ link: String, tableURL: String) -> URL? {
        let text = RemoteResponse.trimmed(link)
        guard !text.isEmpty else { return nil }
        let encoded = PercentEncoding.invalidURLCharacters(text)
        let lower = encoded.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return URL(string: encoded) }
        if encoded.hasPrefix("/") {
            guard let table = URL(string: tableURL), let origin = origin(of: table) else { return nil }
            return URL(string: origin + encoded)
        }
        let query = encoded.hasPrefix("?") ? String(encoded.dropFirst()) : encoded
        return URL(string: tableURL + "?" + query)
    }

    /// `scheme://host[:port]` of `url`, lower-cased scheme and host.
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let defaultPort = scheme == "https" ? 443 : (scheme == "http" ? 80 : nil)
        let port = url.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
        return "\(scheme)://\(bracketed)" + port
    }

    /// Whether `url` names the table at `tableURL` (no query, no trailing slash) itself: the same scheme, host and
    /// port, and the same path once trailing slashes are dropped (compared case-insensitively, as servers match table
    /// names). Another table, a row, another path, a path outside the base URL's prefix and dot segments (which a
    /// client resolves to another path) are not.
    static func isTable(_ url: URL, tableURL: String) -> Bool {
        guard let table = URL(string: tableURL), let origin = origin(of: url), origin == self.origin(of: table),
              let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath,
              let tablePath = URLComponents(url: table, resolvingAgainstBaseURL: false)?.percentEncodedPath
        else { return false }
        var trimmed = Substring(path)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return trimmed.lowercased() == tablePath.lowercased()
    }

    /// Whether `url` is on the same scheme, host and port as `base`.
    static func isSameOrigin(_ url: URL, as base: URL) -> Bool {
        guard let lhs = origin(of: url), let rhs = origin(of: base) else { return false }
        return lhs == rhs
    }
}
