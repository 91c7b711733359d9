import Foundation
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// A parsed HTTP/1.1 request, as ``LoopbackHTTPServer`` hands it to its handler.
struct ServerRequest: Sendable {
    var method: String
    /// The path, percent-encoded as received (`/tables/T/a%20b`).
    var path: String
    /// The query string, percent-encoded as received, without `?`.
    var query: String
    /// Header values by lower-cased name.
    var headers: [String: String]
    var body: [UInt8]
    /// Whether an earlier request came on the same connection (a kept-alive connection reused).
    var isOnReusedConnection = false

    /// `METHOD path` (percent-encoded as received).
    var summary: String { method + " " + path }
}

/// An answer of the handler.
struct ServerResponse: Sendable {
    var status: Int
    var headers: [String: String] = [:]
    var body: [UInt8] = []
    /// Whether the server closes the connection instead of answering (an answer lost in transit).
    var dropsConnection = false
    /// When not zero, the body is sent 4 KiB at a time with this pause before each part (a slow network).
    var trickle: Duration = .zero
    /// When above zero, the answer has no `Content-Length` and no end: after the head and `body`, `streamedChunk` is
    /// sent this many times and the connection is then held open until the client closes it (a server streaming a
    /// page that does not end).
    var streamedChunks = 0
    /// What ``streamedChunks`` repeats.
    var streamedChunk: [UInt8] = []

    /// No answer: the connection is closed without a byte sent.
    static let dropped = ServerResponse(status: 0, dropsConnection: true)
}

/// Reads the requests that arrive one after another on one connection (bytes past one request are kept for the
/// next). Bounded sizes; waits at most `idleTimeout` seconds for a request to begin and `receiveTimeout` seconds
/// for each next part of one.
struct HTTPConnectionReader {
    /// What came next on the connection.
    enum Received {
        case request(ServerRequest)
        /// The client closed the connection, or left it idle for the idle timeout, between requests.
        case closed
        /// A head that declared a body which did not arrive whole before the connection ended or went silent.
        case truncated(summary: String, declared: Int, received: Int)
        /// Not a request this server understands, or too large.
        case malformed
    }

    static let maximumHeaderBytes = 64 * 1024
    static let maximumBodyBytes = 1024 * 1024

    let connection: Int32
    private let idleTimeout: Int, receiveTimeout: Int
    private var data: [UInt8] = []
    private var buffer = [UInt8](repeating: 0, count: 16 * 1024)

    init(connection: Int32, idleTimeout: Int, receiveTimeout: Int) {
        self.connection = connection
        self.idleTimeout = idleTimeout
        self.receiveTimeout = receiveTimeout
    }

    /// The next request on the connection.
    mutating func next() -> Received {
        var headerEnd = Self.find([13, 10, 13, 10], in: data)
        while headerEnd == nil {
            guard data.count < Self.maximumHeaderBytes else { return .malformed }
            guard receive() else { return data.isEmpty ? .closed : .malformed }
            headerEnd = Self.find([13, 10, 13, 10], in: data)
        }
        guard let headerEnd else { return .malformed }
        let head = String(decoding: data[0..<headerEnd], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3 else { return .malformed }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard headers["transfer-encoding"] == nil, let length = Int(headers["content-length"] ?? "0"),
              length >= 0, length <= Self.maximumBodyBytes else { return .malformed }
        let target = String(requestLine[1])
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let method = String(requestLine[0]), path = String(parts[0])
        let bodyStart = headerEnd + 4
        while data.count - bodyStart < length {
            guard receive() else {
                return .truncated(summary: method + " " + path, declared: length, received: data.count - bodyStart)
            }
        }
        let body = Array(data[bodyStart..<(bodyStart + length)])
        data.removeFirst(bodyStart + length)
        return .request(ServerRequest(method: method, path: path, query: parts.count > 1 ? String(parts[1]) : "",
                                      headers: headers, body: body))
    }

    /// Appends what one `recv` brings; false when the connection ended, failed or stayed silent.
    private mutating func receive() -> Bool {
        var timeout = timeval(tv_sec: data.isEmpty ? idleTimeout : receiveTimeout, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let count = recv(connection, &buffer, buffer.count, 0)
        if count < 0, errno == EINTR { return receive() }
        guard count > 0 else { return false }
        data.append(contentsOf: buffer[0..<count])
        return true
    }

    private static func find(_ pattern: [UInt8], in data: [UInt8]) -> Int? {
        guard data.count >= pattern.count else { return nil }
        for start in 0...(data.count - pattern.count) where data[start..<(start + pattern.count)].elementsEqual(pattern) {
            return start
        }
        return nil
    }
}
