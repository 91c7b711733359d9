import OfflineSyncCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPRemote {
    /// Sends one call's request until it has an answer to decode: with the current token; once more with a refreshed
    /// one after a 401 (when a provider gives tokens); again after a transient failure, as the retry policy says.
    ///
    /// With `landed`, a write sent again after an attempt it never read the answer to, and refused with the
    /// server's row holding exactly what it sent, returns `landed` of that row (``LandedWrite``): its earlier
    /// attempt landed, and there is no conflict with anyone.
    func perform<Value>(_ make: (HTTPTableRequestBuilder) throws(HTTPRemoteError) -> HTTPTableRequest,
                        _ decode: (RemoteResponseDecoder, RemoteResponse, HTTPTableRequest) -> RemoteOutcome<Value>,
                        landed: ((JSONObject) -> Value)? = nil)
        async throws -> Value {
        // Before the provider is asked: the base URL, the headers, and whether a token may travel over it.
        try TransportPolicy.check(baseURL: baseURL, authToken: tokens.hasToken ? "" : nil, configuration: configuration)
        var token = try await tokens.token()
        var refreshed = false
        var attempt = 0
        var unanswered = false
        while true {
            attempt += 1
            let request = try make(try builder(token: token.value))
            let response: RemoteResponse
            do {
                response = try await send(request, attempt: attempt)
            } catch RemoteError.network(let message) {
                guard let delay = configuration.retryPolicy.delay(afterAttempt: attempt, retryAfter: nil, unit: jitter()) else {
                    throw RemoteError.network(message)
                }
                unanswered = true
                try await retrySleep(delay)
                continue
            }
            if response.status == 401, tokens.refreshes, !refreshed {
                refreshed = true
                token = try await tokens.refreshed(after: token)
                continue
            }
            if HTTPRetryPolicy.isTransient(status: response.status) {
                let asked = response.headers["retry-after"].flatMap { HTTPRetryPolicy.retryAfter($0, now: now()) }
                if let delay = configuration.retryPolicy.delay(afterAttempt: attempt, retryAfter: asked, unit: jitter()) {
                    unanswered = true
                    try await retrySleep(delay)
                    continue
                }
            }
            let decoder = RemoteResponseDecoder(secrets: token.value.map { [$0] } ?? [])
            let outcome = decode(decoder, response, request)
            return try await resolve(outcome, request, token: token.value, landed: unanswered ? landed : nil)
        }
    }

    private func builder(token: String?) throws(HTTPRemoteError) -> HTTPTableRequestBuilder {
        try TransportPolicy.check(baseURL: baseURL, authToken: token, configuration: configuration)
        return HTTPTableRequestBuilder(apiVersion: apiVersion, authToken: token, installationID: configuration.installationID)
    }

    /// Returns the value, throws the error, or reads the server's row for a 409/412 and throws with it; with
    /// `landed`, a 409/412 whose row holds what the request sent returns `landed` of that row instead.
    private func resolve<Value>(_ outcome: RemoteOutcome<Value>, _ request: HTTPTableRequest, token: String?,
                                landed: ((JSONObject) -> Value)?) async throws -> Value {
        let failure: RemoteError
        switch outcome {
        case .value(let value): return value
        case .failure(let error): failure = error
        case .conflictWithoutRow(let status):
            let row = await serverRow(table: request.table, id: request.itemID, token: token)
            try Task.checkCancellation()
            failure = status == 409 ? RemoteError.conflict(serverItem: row) : RemoteError.preconditionFailed(serverItem: row)
        }
        switch failure {
        case .conflict(let row), .preconditionFailed(let row):
            if let landed, let own = LandedWrite.result(of: request, in: row) { return landed(own) }
        default: break
        }
        throw failure
    }

    /// The server's row by id (deleted rows included), or nil when it cannot be read.
    ///
    /// The by-id route comes first. The Node server's by-id route ignores `__includeDeleted` and answers 404 for a
    /// soft-deleted row (which its list route still returns), so when that read brings no row the list route is asked
    /// for `id eq '…'` with deleted rows included, and the row whose id matches (case-insensitively) is taken.
    private func serverRow(table: String, id: String?, token: String?) async -> JSONObject? {
        guard let id, let builder = try? builder(token: token) else { return nil }
        if let request = try? builder.lookup(id: id, table: table), let response = try? await send(request, attempt: 1),
           case .value(let row) = RemoteResponseDecoder().item(response, for: request) {
            return row
        }
        let query = Query(table: table, filter: Field("id") == .string(id), top: 2, includeDeleted: true)
        guard let request = try? builder.read(query), let response = try? await send(request, attempt: 1),
              case .value(let page) = RemoteResponseDecoder().page(response, for: request, tableURL: tableURL(table))
        else { return nil }
        return page.items.first { $0["id"]?.stringValue.map(ItemID.key) == ItemID.key(id) }
    }

    /// Sends one request and tells the request hook how it went.
    private func send(_ request: HTTPTableRequest, attempt: Int) async throws -> RemoteResponse {
        guard let url = request.url(base: baseURL) else {
            throw HTTPRemoteError.unsupportedBaseURL(baseURL.absoluteString)
        }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
        // A backstop only: the deadline is enforced by `DeadlineExchange` (Linux URLSession truncates the interval to
        // whole seconds and ignores it unless set through this setter).
        urlRequest.timeoutInterval = (configuration.timeoutInterval + 1).rounded(.up)
        urlRequest.httpMethod = request.method
        let own = Set(request.headers.map { $0.name.lowercased() })
        for (name, value) in configuration.additionalHeaders
        where !own.contains(name.lowercased()) && !TransportPolicy.protocolHeaders.contains(name.lowercased()) {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        for header in request.headers { urlRequest.setValue(header.value, forHTTPHeaderField: header.name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        let clock = ContinuousClock(), start = clock.now
        let data: Data, response: URLResponse
        do {
            (data, response) = try await FreshConnectionWrites.exchange(urlRequest, session: session, timeout: configuration.timeout,
                                                                        maximumBytes: configuration.maximumResponseBytes)
        } catch let exceeded as ResponseBodyLimit.Exceeded {
            let failure = RemoteError.invalidResponse(
                "\(request.summary) answered with more than \(exceeded.maximumBytes) bytes (HTTPRemoteConfiguration.maximumResponseBytes), "
                    + "so the answer was cut off; ask for smaller pages (PullSettings.pageSize), or raise the limit if the records are that large.")
            report(request, url: url, attempt: attempt, duration: start.duration(to: clock.now), status: nil, body: nil,
                   failure: String(describing: failure))
            throw failure
        } catch {
            let failure = TransportPolicy.networkError(error, request: request, timeout: configuration.timeoutInterval)
            report(request, url: url, attempt: attempt, duration: start.duration(to: clock.now), status: nil, body: nil,
                   failure: String(describing: failure))
            throw failure
        }
        guard let http = response as? HTTPURLResponse else {
            throw RemoteError.invalidResponse("\(request.summary) got an answer that is not HTTP.")
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        report(request, url: url, attempt: attempt, duration: start.duration(to: clock.now), status: http.statusCode,
               body: [UInt8](data), failure: nil)
        return RemoteResponse(status: http.statusCode, headers: headers, body: [UInt8](data))
    }

    private func report(_ request: HTTPTableRequest, url: URL, attempt: Int, duration: Duration, status: Int?, body: [UInt8]?,
                        failure: String?) {
        guard let hook = configuration.requestHook else { return }
        hook.handler(HTTPRequestEvent(
            method: request.method, url: url, statusCode: status, duration: duration, requestBytes: request.body?.count ?? 0,
            responseBytes: body?.count ?? 0, attempt: attempt, failure: failure,
            requestBody: hook.includesBodies ? request.body : nil, responseBody: hook.includesBodies ? body : nil))
    }
}
