public import OfflineSyncCore
public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Attachment files over HTTP: `PUT`, `GET` and `DELETE` on a URL the app builds per attachment id, such as a storage
/// service's pre-signed (SAS) URL or an endpoint of the app's own back end.
///
/// ```swift
/// let transport = HTTPAttachmentTransport(url: { id in
///     try await api.signedURL(forBlob: id)      // or: baseURL.appending(path: "files/\(id)")
/// }, authentication: tokens)
/// ```
///
/// - `PUT` sends the file's bytes (`Content-Type: application/octet-stream`); any 2xx answer is success, and
///   sending the same id again is expected to store the same bytes (uploads are retried after a kill).
/// - `GET` answered 404 or 410 throws ``AttachmentTransportError/notFound(id:)``; `DELETE` answered 404 or 410 succeeds.
/// - With `authentication`, requests carry `Authorization: Bearer <token>`, refreshed once after a 401, under the
///   same rules as ``HTTPRemote`` (no token over plain `http` to another host unless the configuration allows it).
/// - The configuration's timeout, additional headers, retry policy (network failures, 408, 429 and 5xx) and request
///   hook apply as they do to ``HTTPRemote``. A file is read whole before it is sent.
public struct HTTPAttachmentTransport: AttachmentTransport {
    private let url: @Sendable (_ id: String) async throws -> URL
    private let tokens: TokenSource
    private let configuration: HTTPRemoteConfiguration
    private let session: URLSession

    /// A transport that sends each attachment's requests to `url(id)`.
    /// - Parameters:
    ///   - url: the URL of an attachment's file, by id.
    ///   - authentication: where the requests' bearer token comes from; nil for none.
    ///   - configuration: timeout, headers, retries and request hook.
    public init(url: @escaping @Sendable (_ id: String) async throws -> URL,
                authentication: (any AuthenticationProvider)? = nil,
                configuration: HTTPRemoteConfiguration = HTTPRemoteConfiguration()) {
        self.url = url
        tokens = authentication.map { TokenSource(provider: $0) } ?? TokenSource(fixed: nil)
        self.configuration = configuration
        session = HTTPRemote.defaultSession
    }

    /// `PUT` of the file's bytes.
    /// - Throws: ``RemoteError`` for an answer other than 2xx or a network failure; the file's read error.
    public func upload(_ file: URL, id: String) async throws {
        let body = try Data(contentsOf: file)
        let answer = try await exchange("PUT", id: id, body: body)
        guard (200..<300).contains(answer.status) else { throw Self.failure(answer, "PUT", id: id) }
    }

    /// `GET` of the file, written to `destination`.
    /// - Throws: ``AttachmentTransportError/notFound(id:)`` for 404 or 410; ``RemoteError`` for another answer
    ///   other than 2xx or a network failure.
    public func download(id: String, to destination: URL) async throws {
        let answer = try await exchange("GET", id: id, body: nil)
        if answer.status == 404 || answer.status == 410 { throw AttachmentTransportError.notFound(id: id) }
        guard (200..<300).contains(answer.status) else { throw Self.failure(answer, "GET", id: id) }
        try answer.body.write(to: destination)
    }

    /// `DELETE` of the file; a file already gone (404, 410) counts as deleted.
    /// - Throws: ``RemoteError`` for another answer other than 2xx or a network failure.
    public func delete(id: String) async throws {
        let answer = try await exchange("DELETE", id: id, body: nil)
        guard (200..<300).contains(answer.status) || answer.status == 404 || answer.status == 410 else {
            throw Self.failure(answer, "DELETE", id: id)
        }
    }

    /// Sends one request until it has an answer: again with a refreshed token after a 401, again after a transient
    /// failure as the retry policy says.
    private func exchange(_ method: String, id: String, body: Data?) async throws -> Answer {
        let target = try await url(id)
        let summary = "\(method) of attachment \(id)"
        try TransportPolicy.check(baseURL: target, authToken: tokens.hasToken ? "" : nil, configuration: configuration)
        var token = try await tokens.token()
        var refreshed = false
        var attempt = 0
        while true {
            attempt += 1
            try TransportPolicy.check(baseURL: target, authToken: token.value, configuration: configuration)
            let request = makeRequest(method, target: target, token: token.value, body: body)
            let started = ContinuousClock.now
            let data: Data, response: URLResponse
            do {
                (data, response) = try await FreshConnectionWrites.exchange(request, session: session, timeout: configuration.timeout)
            } catch {
                let failure = TransportPolicy.networkError(error, summary: summary, timeout: configuration.timeoutInterval)
                report(method, target, attempt: attempt, since: started, status: nil, sent: body?.count ?? 0, received: 0,
                       failure: String(describing: failure))
                guard !(failure is CancellationError),
                      let delay = configuration.retryPolicy.delay(afterAttempt: attempt, retryAfter: nil, unit: .random(in: 0..<1))
                else { throw failure }
                try await Task.sleep(for: delay)
                continue
            }
            guard let http = response as? HTTPURLResponse else {
                throw RemoteError.invalidResponse("\(summary) got an answer that is not HTTP.")
            }
            report(method, target, attempt: attempt, since: started, status: http.statusCode, sent: body?.count ?? 0,
                   received: data.count, failure: nil)
            if http.statusCode == 401 {
                guard tokens.refreshes, !refreshed else { throw RemoteError.unauthorized }
                refreshed = true
                token = try await tokens.refreshed(after: token)
                continue
            }
            if HTTPRetryPolicy.isTransient(status: http.statusCode) {
                let asked = (http.value(forHTTPHeaderField: "Retry-After")).flatMap { HTTPRetryPolicy.retryAfter($0, now: Date()) }
                if let delay = configuration.retryPolicy.delay(afterAttempt: attempt, retryAfter: asked, unit: .random(in: 0..<1)) {
                    try await Task.sleep(for: delay)
                    continue
                }
            }
            return (http.statusCode, data, token.value)
        }
    }

    private func makeRequest(_ method: String, target: URL, token: String?, body: Data?) -> URLRequest {
        var request = URLRequest(url: target, cachePolicy: .reloadIgnoringLocalCacheData)
        request.timeoutInterval = (configuration.timeoutInterval + 1).rounded(.up)
        request.httpMethod = method
        for (name, value) in configuration.additionalHeaders where !TransportPolicy.protocolHeaders.contains(name.lowercased()) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        if let token { request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        }
        return request
    }

    private func report(_ method: String, _ url: URL, attempt: Int, since started: ContinuousClock.Instant, status: Int?,
                        sent: Int, received: Int, failure: String?) {
        guard let hook = configuration.requestHook else { return }
        hook.handler(HTTPRequestEvent(method: method, url: url, statusCode: status, duration: started.duration(to: .now),
                                      requestBytes: sent, responseBytes: received, attempt: attempt, failure: failure,
                                      requestBody: nil, responseBody: nil))
    }

    /// An answer, with the token its request carried (never to be repeated in a message).
    private typealias Answer = (status: Int, body: Data, token: String?)

    /// The error of an answer other than success: the status and the start of the body, the token redacted as on the
    /// table path (a server may echo the request's headers).
    private static func failure(_ answer: Answer, _ method: String, id: String) -> RemoteError {
        let decoder = RemoteResponseDecoder(secrets: answer.token.map { [$0] } ?? [])
        let text = decoder.redacted(String(decoding: answer.body.prefix(200), as: UTF8.self))
        return .server(status: answer.status, message: "\(method) of attachment \(id) was answered \(answer.status)"
            + (text.isEmpty ? "." : ": \(text)"))
    }
}
