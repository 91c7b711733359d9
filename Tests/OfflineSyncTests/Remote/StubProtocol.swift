import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request as the stub saw it.
struct RecordedRequest: Sendable {
    var method: String
    var url: URL
    var headers: [String: String]
    var body: [UInt8]

    /// The percent-encoded path, e.g. `/tables/TodoItem/a%20b`.
    var encodedPath: String {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
    }

    /// The percent-encoded `name=value` pairs of the query, in order.
    var encodedQueryPairs: [String] {
        guard let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery else { return [] }
        return query.split(separator: "&").map(String.init)
    }

    /// A header by case-insensitive name.
    func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}

/// What the stub answers.
enum StubReply: Sendable {
    case response(status: Int, headers: [String: String], body: [UInt8])
    case failure(URLError.Code)
}

/// An in-process fake server for one test, reached through ``StubProtocol`` at a host of its own.
final class StubServer: @unchecked Sendable {
    /// The session whose requests go to the stubs (ephemeral, `protocolClasses = [StubProtocol.self]`).
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubProtocol.self]
        return URLSession(configuration: configuration)
    }()

    private static let lock = NSLock()
    nonisolated(unsafe) private static var servers: [String: StubServer] = [:]

    let host: String
    private let lock = NSLock()
    private var replies: [StubReply]
    private var recorded: [RecordedRequest] = []

    /// A stub answering with `replies` in order (then 599 when they run out).
    init(replies: [StubReply]) {
        host = "h" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "") + ".stub.test"
        self.replies = replies
        Self.lock.withLock { Self.servers[host] = self }
    }

    deinit {
        Self.lock.withLock { Self.servers[host] = nil }
    }

    /// `https://<host>`.
    var baseURL: URL { URL(string: "https://\(host)") ?? URL(fileURLWithPath: "/") }

    /// `http://<host>`.
    var plainBaseURL: URL { URL(string: "http://\(host)") ?? URL(fileURLWithPath: "/") }

    /// Replaces the replies still to come.
    func script(_ replies: [StubReply]) { lock.withLock { self.replies = replies } }

    /// Every request received, in order.
    var requests: [RecordedRequest] { lock.withLock { recorded } }

    static func server(for host: String) -> StubServer? { lock.withLock { servers[host] } }

    func answer(_ request: RecordedRequest) -> StubReply {
        lock.withLock {
            recorded.append(request)
            guard !replies.isEmpty else { return .response(status: 599, headers: [:], body: Array("no reply scripted".utf8)) }
            return replies.removeFirst()
        }
    }
}

/// Routes every request to the ``StubServer`` registered for its host.
final class StubProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let url = request.url, let host = url.host, let server = StubServer.server(for: host) else {
            client?.urlProtocol(self, didFailWithError: URLError(.cannotFindHost))
            return
        }
        let recorded = RecordedRequest(method: request.httpMethod ?? "GET", url: url,
                                       headers: request.allHTTPHeaderFields ?? [:], body: Self.body(of: request))
        switch server.answer(recorded) {
        case .failure(let code):
            client?.urlProtocol(self, didFailWithError: URLError(code))
        case .response(let status, let headers, let body):
            guard let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1",
                                                 headerFields: headers) else {
                client?.urlProtocol(self, didFailWithError: URLError(.badServerResponse))
                return
            }
            client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            if !body.isEmpty { client?.urlProtocol(self, didLoad: Data(body)) }
            client?.urlProtocolDidFinishLoading(self)
        }
    }

    override func stopLoading() {}

    private static func body(of request: URLRequest) -> [UInt8] {
        if let data = request.httpBody { return [UInt8](data) }
        guard let stream = request.httpBodyStream else { return [] }
        stream.open()
        defer { stream.close() }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return bytes
    }
}
