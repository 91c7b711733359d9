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
}

/// An answer of the handler.
struct ServerResponse: Sendable {
    var status: Int
    var headers: [String: String] = [:]
    var body: [UInt8] = []
}

/// A minimal HTTP/1.1 server on 127.0.0.1 for end-to-end tests: POSIX sockets, an ephemeral port, one thread that
/// serves one connection at a time (`Connection: close`), bounded request sizes, a receive timeout per connection,
/// and a ``stop()`` that returns once the thread has ended.
final class LoopbackHTTPServer: @unchecked Sendable {
    typealias Handler = @Sendable (ServerRequest) -> ServerResponse

    /// The port the server listens on (chosen by the system).
    let port: UInt16
    private let listener: Int32
    private let handler: Handler
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var stopping = false
    private var stopped = false
    static let maximumHeaderBytes = 64 * 1024
    static let maximumBodyBytes = 1024 * 1024

    /// Binds 127.0.0.1 on an ephemeral port and starts serving with `handler`.
    init(handler: @escaping Handler) throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw FixtureError("socket failed: errno \(errno)") }
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw FixtureError("bind/listen failed: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        self.handler = handler
        let thread = Thread { [self] in serve() }
        thread.name = "LoopbackHTTPServer"
        thread.start()
    }

    deinit { stop() }

    /// `http://127.0.0.1:<port>`.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }

    /// Stops accepting, waits for the serving thread to end and closes the socket. Later calls do nothing.
    func stop() {
        let first: Bool = lock.withLock {
            defer { stopping = true }
            return !stopping
        }
        guard first else { return }
        wakeAcceptingThread()
        shutdown(listener, Int32(SHUT_RDWR))
        finished.wait()
        close(listener)
    }

    /// Connects to the server once, so a thread blocked in `accept` returns and sees that the server is stopping
    /// (on Darwin `shutdown` does not wake `accept`).
    private func wakeAcceptingThread() {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    private var isStopping: Bool { lock.withLock { stopping } }

    private func serve() {
        defer { finished.signal() }
        while !isStopping {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            if isStopping {
                close(connection)
                return
            }
            handle(connection)
            close(connection)
        }
    }

    private func handle(_ connection: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        var noSignal: Int32 = 1
        setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &noSignal, socklen_t(MemoryLayout<Int32>.size))
        #endif
        let response: ServerResponse
        if let request = read(connection) {
            response = handler(request)
        } else {
            response = ServerResponse(status: 400, body: Array("malformed request".utf8))
        }
        write(response, to: connection)
    }

    private func read(_ connection: Int32) -> ServerRequest? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var headerEnd: Int?
        while headerEnd == nil {
            guard data.count < Self.maximumHeaderBytes else { return nil }
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            data.append(contentsOf: buffer[0..<count])
            headerEnd = Self.find([13, 10, 13, 10], in: data)
        }
        guard let headerEnd else { return nil }
        let head = String(decoding: data[0..<headerEnd], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        guard length >= 0, length <= Self.maximumBodyBytes else { return nil }
        var body = Array(data[(headerEnd + 4)...])
        while body.count < length {
            let count = recv(connection, &buffer, min(buffer.count, length - body.count), 0)
            guard count > 0 else { return nil }
            body.append(contentsOf: buffer[0..<count])
        }
        let target = String(requestLine[1])
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return ServerRequest(method: String(requestLine[0]), path: String(parts[0]),
                             query: parts.count > 1 ? String(parts[1]) : "", headers: headers,
                             body: Array(body.prefix(length)))
    }

    private func write(_ response: ServerResponse, to connection: Int32) {
        var head = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\n"
        var headers = response.headers
        headers["Content-Length"] = String(response.body.count)
        headers["Connection"] = "close"
        if !response.body.isEmpty, headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        let bytes = Array((head + "\r\n").utf8) + response.body
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Self.sendFlags) }
            guard count > 0 else { return }
            sent += count
        }
    }

    #if canImport(Glibc)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let sendFlags: Int32 = 0
    #endif

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 404: return "Not Found"
        case 409: return "Conflict"
        case 412: return "Precondition Failed"
        default: return "Status"
        }
    }

    private static func find(_ pattern: [UInt8], in data: [UInt8]) -> Int? {
        guard data.count >= pattern.count else { return nil }
        for start in 0...(data.count - pattern.count) where data[start..<(start + pattern.count)].elementsEqual(pattern) {
            return start
        }
        return nil
    }
}
