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
///   ``description``. `nextLink`s to another server are refused. Redirects are left to the `URLSession`.
public struct HTTPRemote: SyncRemote, CustomStringConvertible, CustomReflectable {
    /// The server's root URL (`https://host` or `https://host/prefix`); tables live under `/tables/`.
    public let baseURL: URL
    /// The protocol version spoken.
    public let apiVersion: APIVersion
    /// Timeout, token policy and installation id.
    public let configuration: HTTPRemoteConfiguration
    private let authToken: String?
    private let session: URLSession

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
    public init(baseURL: URL, apiVersion: APIVersion = .v2, authToken: String? = nil, session: URLSession) {
        self.init(baseURL: baseURL, apiVersion: apiVersion, authToken: authToken,
                  configuration: HTTPRemoteConfiguration(), session: session)
    }

    /// Creates a remote with a ``HTTPRemoteConfiguration``; `session` nil means the shared ephemeral session.
    public init(baseURL: URL, apiVersion: APIVersion = .v2, authToken: String? = nil,
                configuration: HTTPRemoteConfiguration, session: URLSession? = nil) {
        self.baseURL = baseURL
        self.apiVersion = apiVersion
        self.authToken = authToken
        self.configuration = configuration
        self.session = session ?? HTTPRemote.defaultSession
    }

    /// The session of remotes created without one: ephemeral, shared by them all, without cookies or a cache
    /// (so nothing one server sets travels to another).
    private static let defaultSession: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration, delegate: SameOriginRedirectPolicy(), delegateQueue: nil)
    }()

    /// The base URL, the version and whether a token is set (never the token).
    public var description: String {
        "HTTPRemote(\(baseURL.absoluteString), \(apiVersion), token: \(authToken == nil ? "none" : "set"))"
    }

    /// A mirror without the token, so `dump` and debuggers never show it.
    public var customMirror: Mirror {
        Mirror(self, children: ["baseURL": baseURL, "apiVersion": apiVersion, "configuration": configuration,
                                "hasToken": authToken != nil], displayStyle: .struct)
    }

    /// `POST /tables/{table}`; returns the server's copy, its `version` taken from the `ETag` when sent.
    /// - Throws: ``RemoteError`` for the server's answer (`.conflict` with the server's row for an existing id),
    ///   ``HTTPRemoteError`` when the request cannot be sent, `CancellationError` when the task is cancelled.
    @discardableResult
    public func insert(_ item: JSONObject, table: String) async throws -> JSONObject {
        let request = try builder().insert(item, table: table)
        return try await resolve(decoder.item(try await send(request), for: request), request)
    }

    /// `PATCH` (v2) or `PUT` (v3) `/tables/{table}/{id}` with `If-Match` from `item["version"]`; returns the server's copy.
    /// - Throws: like ``insert(_:table:)``; `.preconditionFailed` with the server's row on a version mismatch.
    @discardableResult
    public func update(_ item: JSONObject, table: String) async throws -> JSONObject {
        let request = try builder().update(item, table: table)
        return try await resolve(decoder.item(try await send(request), for: request), request)
    }

    /// `DELETE /tables/{table}/{id}` with `If-Match` when `version` is given.
    /// - Throws: like ``insert(_:table:)``; `.notFound` (404) and `.gone` (410) when the row is already gone.
    public func delete(id: String, version: String?, table: String) async throws {
        let request = try builder().delete(id: id, version: version, table: table)
        _ = try await resolve(decoder.deletion(try await send(request), for: request), request)
    }

    /// `GET /tables/{table}?…`: one page of the query's results, with `$skip`/`$top` as the query sets them.
    /// - Throws: like ``insert(_:table:)``; `.invalidResponse` for a body that is not a page.
    public func read(_ query: Query) async throws -> RemotePage {
        let request = try builder().read(query)
        return try await resolve(decoder.page(try await send(request), for: request, tableURL: tableURL(query.table)),
                                 request)
    }

    /// Reads the page a v3 `nextLink` points to (as returned in ``RemotePage/nextLink``).
    /// - Throws: ``HTTPRemoteError/foreignNextLink(_:)`` when the link leaves the base URL's server; else like
    ///   ``read(_:)``.
    public func read(nextLink: URL, table: String) async throws -> RemotePage {
        guard NextLink.isSameOrigin(nextLink, as: baseURL) else {
            throw HTTPRemoteError.foreignNextLink(decoder.redacted(nextLink.absoluteString))
        }
        let request = try builder().follow(nextLink, table: table)
        return try await resolve(decoder.page(try await send(request), for: request, tableURL: tableURL(table)), request)
    }

    // MARK: - Sending

    private var decoder: RemoteResponseDecoder { RemoteResponseDecoder(secrets: authToken.map { [$0] } ?? []) }

    private func tableURL(_ table: String) -> String {
        RemoteRequest.root(of: baseURL) + "/tables/" + PercentEncoding.pathSegment(table)
    }

    private func builder() throws(HTTPRemoteError) -> RemoteRequestBuilder {
        try TransportPolicy.check(baseURL: baseURL, authToken: authToken, configuration: configuration)
        return RemoteRequestBuilder(apiVersion: apiVersion, authToken: authToken,
                                    installationID: configuration.installationID)
    }

    /// Returns the value, throws the error, or reads the server's row for a 409/412 and throws with it.
    private func resolve<Value>(_ outcome: RemoteOutcome<Value>, _ request: RemoteRequest) async throws -> Value {
        switch outcome {
        case .value(let value): return value
        case .failure(let error): throw error
        case .conflictWithoutRow(let status):
            let row = await serverRow(table: request.table, id: request.itemID)
            try Task.checkCancellation()
            throw status == 409 ? RemoteError.conflict(serverItem: row) : RemoteError.preconditionFailed(serverItem: row)
        }
    }

    /// The server's row by id (deleted rows included), or nil when it cannot be read.
    private func serverRow(table: String, id: String?) async -> JSONObject? {
        guard let id, let request = try? builder().lookup(id: id, table: table),
              let response = try? await send(request),
              case .value(let row) = decoder.item(response, for: request)
        else { return nil }
        return row
    }

    /// Sends `urlRequest`, failing with `URLError(.timedOut)` when no answer arrived within the configured timeout.
    private func exchange(_ urlRequest: URLRequest) async throws -> (Data, URLResponse) {
        let session = session, timeout = configuration.timeout
        return try await withThrowingTaskGroup(of: (Data, URLResponse)?.self) { group in
            group.addTask { try await session.data(for: urlRequest) }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let answer = first else { throw URLError(.timedOut) }
            return answer
        }
    }

    private func send(_ request: RemoteRequest) async throws -> RemoteResponse {
        guard let url = request.url(base: baseURL) else {
            throw HTTPRemoteError.unsupportedBaseURL(baseURL.absoluteString)
        }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
        // A backstop only: the deadline is enforced by `exchange` (Linux URLSession truncates the interval to
        // whole seconds and ignores it unless set through this setter).
        urlRequest.timeoutInterval = (configuration.timeoutInterval + 1).rounded(.up)
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.setValue(header.value, forHTTPHeaderField: header.name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        let data: Data, response: URLResponse
        do {
            (data, response) = try await exchange(urlRequest)
        } catch {
            throw TransportPolicy.networkError(error, request: request, timeout: configuration.timeoutInterval)
        }
        guard let http = response as? HTTPURLResponse else {
            throw RemoteError.invalidResponse("\(request.summary) got an answer that is not HTTP.")
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return RemoteResponse(status: http.statusCode, headers: headers, body: [UInt8](data))
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
