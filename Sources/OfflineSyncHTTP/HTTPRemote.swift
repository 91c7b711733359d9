public import OfflineSyncCore
public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A ``SyncRemote`` that speaks the table protocol over HTTP to Azure Mobile Apps (v2) and Datasync (v3) servers.
///
/// ```swift
/// let remote = HTTPRemote(baseURL: URL(string: "https://example.azurewebsites.net")!, apiVersion: .v2,
///                         authToken: token)
/// let context = SyncContext(dataSource: store, remote: remote)
/// ```
///
/// - Requests: see `Docs/Protocol.md`. Table names and ids are validated and percent-encoded into
///   `/tables/{table}/{id}`; bad ones throw ``HTTPRemoteError`` before anything is sent.
/// - Answers map to ``RemoteError``. For a 409 or 412 whose body is not the server's row (v2 .NET sends a message,
///   v2 Node echoes the request), the row is read with `GET /tables/{table}/{id}` (deleted rows included) before
///   the error is thrown; `serverItem` is nil only when that read fails too.
/// - Paging: ``read(_:)`` sends the query's `$skip`/`$top` and returns one page. For v3 the page's `nextLink` is
///   returned for information, resolved to an absolute URL; the sync engine pages with `$skip`, which v3 servers
///   honour. A caller that prefers the server's links calls ``read(nextLink:table:)`` until it returns a page
///   without `nextLink`.
/// - Security: a token is never sent over plain `http` to a host other than a loopback address unless
///   ``HTTPRemoteConfiguration/allowsInsecureToken`` is set; it never appears in an error message or in
///   ``description``. `nextLink`s to another server, or to another path than the table's, are refused. Redirects are left to the `URLSession`.
public struct HTTPRemote: SyncRemote, CustomStringConvertible, CustomReflectable {
    /// The server's root URL (`https://host` or `https://host/prefix`); tables live under `/tables/`.
    public let baseURL: URL
    /// The protocol version spoken.
    public let apiVersion: APIVersion
    /// Timeout, token policy, installation id, headers, retries and the request hook.
    public let configuration: HTTPRemoteConfiguration
    let tokens: TokenSource
    let session: URLSession
    /// Waits between retries; replaced by tests so that they never sleep.
    var retrySleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    /// Draws the jitter of a retry's wait from `0 ..< 1`.
    var jitter: @Sendable () -> Double = { Double.random(in: 0..<1) }
    /// The wall clock, for `Retry-After` dates.
    var now: @Sendable () -> Date = { Date() }

    /// Creates a remote with the default ``HTTPRemoteConfiguration`` and a shared ephemeral `URLSession` without
    /// cookies or cache.
    /// - Parameters:
    ///   - baseURL: the server's root URL.
    ///   - apiVersion: `.v2` (Azure Mobile Apps) or `.v3` (Datasync).
    ///   - authToken: sent as `X-ZUMO-AUTH` (v2) or `Authorization: Bearer` (v3) when set.
    public init(baseURL: URL, apiVersion: APIVersion = .v2, authToken: String? = nil) {
        self.init(baseURL: baseURL, apiVersion: apiVersion, authToken: authToken,
                  configuration: HTTPRemoteConfiguration(), session: nil)
    }

    /// Creates a remote that sends through `session` (to set protocol classes, proxies or timeouts).
    ///
    /// `URLSession` follows redirects by copying every header, the token included, to whatever a `Location` names.
    /// Remotes created without a session refuse redirects to another origin; give your session the same policy with
    /// `URLSession(configuration: …, delegate: SameOriginRedirectPolicy(), delegateQueue: nil)`.
    /// On Linux each write goes through a session made from this one's configuration, delegate and delegate queue
    /// (`Docs/Protocol.md`, section 5.1).
    public init(baseURL: URL, apiVersion: APIVersion = .v2, authToken: String? = nil, session: URLSession) {
        self.init(baseURL: baseURL, apiVersion: apiVersion, authToken: authToken,
                  configuration: HTTPRemoteConfiguration(), session: session)
    }

    /// Creates a remote with a ``HTTPRemoteConfiguration``; `session` nil means the shared ephemeral session.
    public init(baseURL: URL, apiVersion: APIVersion = .v2, authToken: String? = nil,
                configuration: HTTPRemoteConfiguration, session: URLSession? = nil) {
        self.init(baseURL: baseURL, apiVersion: apiVersion, tokens: TokenSource(fixed: authToken),
                  configuration: configuration, session: session)
    }

    /// Creates a remote whose token comes from `authentication`, refreshed once when the server answers 401 (see
    /// ``AuthenticationProvider``); `session` nil means the shared ephemeral session.
    public init(baseURL: URL, apiVersion: APIVersion = .v2, authentication: any AuthenticationProvider,
                configuration: HTTPRemoteConfiguration = HTTPRemoteConfiguration(), session: URLSession? = nil) {
        self.init(baseURL: baseURL, apiVersion: apiVersion, tokens: TokenSource(provider: authentication),
                  configuration: configuration, session: session)
    }

    private init(baseURL: URL, apiVersion: APIVersion, tokens: TokenSource, configuration: HTTPRemoteConfiguration,
                 session: URLSession?) {
        self.baseURL = baseURL
        self.apiVersion = apiVersion
        self.tokens = tokens
        self.configuration = configuration
        self.session = session ?? HTTPRemote.defaultSession
    }

    /// The session of remotes created without one: ephemeral, shared by them all, without cookies or a cache
    /// (so nothing one server sets travels to another), and up to 8 connections to a server, so that a push or a
    /// pull with 8 requests in flight has them all on the wire (Foundation allows 6, or 4 on iOS, by default).
    static let defaultSession: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 8
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration, delegate: SameOriginRedirectPolicy(), delegateQueue: nil)
    }()

    /// The base URL, the version and where the token comes from (never the token).
    public var description: String {
        let token = tokens.refreshes ? "provider" : (tokens.hasToken ? "set" : "none")
        return "HTTPRemote(\(baseURL.absoluteString), \(apiVersion), token: \(token))"
    }

    /// A mirror without the token, so `dump` and debuggers never show it.
    public var customMirror: Mirror {
        Mirror(self, children: ["baseURL": baseURL, "apiVersion": apiVersion, "configuration": configuration,
                                "hasToken": tokens.hasToken], displayStyle: .struct)
    }

    /// `POST /tables/{table}`; returns the server's copy, its `version` taken from the `ETag` when sent.
    ///   A retry (after an unanswered attempt) refused with a row holding what was sent returns that row: the
    ///   earlier attempt landed.
    /// - Throws: ``RemoteError`` for the server's answer (`.conflict` with the server's row for an existing id),
    ///   ``HTTPRemoteError`` when the request cannot be sent, `CancellationError` when the task is cancelled.
    @discardableResult
    public func insert(_ item: JSONObject, table: String) async throws -> JSONObject {
        try await perform({ builder throws(HTTPRemoteError) in try builder.insert(item, table: table) },
                          { decoder, response, request in decoder.item(response, for: request) }, landed: { $0 })
    }

    /// `PATCH` (v2) or `PUT` (v3) `/tables/{table}/{id}` with `If-Match` from `item["version"]`; returns the server's copy
    /// (also when a retry meets a 412 whose row holds what was sent, as for ``insert(_:table:)``).
    /// - Throws: like ``insert(_:table:)``; `.preconditionFailed` with the server's row on a version mismatch;
    ///   ``HTTPRemoteError/invalidVersion(table:id:)``, nothing sent, when the version is not a string that can be an
    ///   `If-Match` value (a write never goes without its precondition).
    @discardableResult
    public func update(_ item: JSONObject, table: String) async throws -> JSONObject {
        try await perform({ builder throws(HTTPRemoteError) in try builder.update(item, table: table) },
                          { decoder, response, request in decoder.item(response, for: request) }, landed: { $0 })
    }

    /// `DELETE /tables/{table}/{id}` with `If-Match` when `version` is given.
    /// - Throws: like ``insert(_:table:)``; `.notFound` (404) and `.gone` (410) when the row is already gone;
    ///   ``HTTPRemoteError/invalidVersion(table:id:)``, nothing sent, when `version` cannot be an `If-Match` value.
    public func delete(id: String, version: String?, table: String) async throws {
        _ = try await perform({ builder throws(HTTPRemoteError) in try builder.delete(id: id, version: version, table: table) },
                              { decoder, response, request in decoder.deletion(response, for: request) })
    }

    /// `GET /tables/{table}?…`: one page of the query's results, with `$skip`/`$top` as the query sets them.
    /// - Throws: like ``insert(_:table:)``; `.invalidResponse` for a body that is not a page.
    public func read(_ query: Query) async throws -> RemotePage {
        let tableURL = tableURL(query.table)
        return try await perform({ builder throws(HTTPRemoteError) in try builder.read(query) },
                                 { decoder, response, request in decoder.page(response, for: request, tableURL: tableURL) })
    }

    /// Reads the page a v3 `nextLink` points to (as returned in ``RemotePage/nextLink``).
    /// - Throws: ``HTTPRemoteError/foreignNextLink(_:)`` when the link leaves the base URL's server, and
    ///   ``HTTPRemoteError/foreignNextLink(_:table:)`` when it names another path there than `table`'s (another
    ///   table, a row, a path outside the base URL's); else like ``read(_:)``.
    public func read(nextLink: URL, table: String) async throws -> RemotePage {
        guard NextLink.isSameOrigin(nextLink, as: baseURL) else {
            throw HTTPRemoteError.foreignNextLink(RemoteResponseDecoder().redacted(nextLink.absoluteString))
        }
        let tableURL = tableURL(table)
        guard NextLink.isTable(nextLink, tableURL: tableURL) else {
            throw HTTPRemoteError.foreignNextLink(RemoteResponseDecoder().redacted(nextLink.absoluteString), table: table)
        }
        return try await perform({ builder throws(HTTPRemoteError) in try builder.follow(nextLink, table: table) },
                                 { decoder, response, request in decoder.page(response, for: request, tableURL: tableURL) })
    }

    func tableURL(_ table: String) -> String {
        HTTPTableRequest.root(of: baseURL) + "/tables/" + PercentEncoding.pathSegment(table)
    }
}

/// A `URLSession` delegate that follows a redirect only within the original request's origin (scheme, host, port).
///
/// `URLSession` copies every header, the token included, to whatever a `Location` names, so a redirect to another
/// host (or from https to http) would hand the token over. A refused redirect returns the 3xx answer itself, which
/// `HTTPRemote` reports as an error. It holds no state.
public final class SameOriginRedirectPolicy: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    /// Creates the policy.
    override public init() {
        super.init()
    }

    /// Allows `request` only when it goes to the same origin as the task's original request.
    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        let origin = (task.originalRequest?.url).flatMap(NextLink.origin(of:))
        let target = request.url.flatMap(NextLink.origin(of:))
        completionHandler(origin != nil && target == origin ? request : nil)
    }
}
