import Foundation
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// A minimal HTTP/1.1 server on 127.0.0.1 for end-to-end tests: POSIX sockets, an ephemeral port, one thread
/// accepting and one thread per connection, so connections are served at the same time. Connections are kept alive:
/// one serves request after request until the client closes it or asks `Connection: close`, it stays idle for
/// the idle timeout, or the handler drops it (``ServerResponse/dropped``). A request whose head declares a body
/// that does not arrive whole is recorded (``truncatedRequests``) and its connection closed without an answer.
/// ``stop()`` returns once every thread has ended.
final class LoopbackHTTPServer: @unchecked Sendable {
    typealias Handler = @Sendable (ServerRequest) -> ServerResponse

    /// The port the server listens on (chosen by the system).
    let port: UInt16
    private let listener: Int32
    private let handler: Handler
    private let idleTimeout: Int, receiveTimeout: Int
    private let finished = DispatchSemaphore(value: 0)
    private let connections = DispatchGroup()
    private let lock = NSLock()
    private var stopping = false
    private var open: Set<Int32> = []
    private var truncated: [String] = []

    /// Binds 127.0.0.1 on an ephemeral port and starts serving with `handler`; a connection waits at most
    /// `idleTimeout` seconds for a request to begin and `receiveTimeout` seconds for each next part of one (a
    /// request head, then its body) before it is closed.
    init(idleTimeout: Int = 30, receiveTimeout: Int = 5, handler: @escaping Handler) throws {
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
        guard bound == 0, listen(fd, 128) == 0 else {
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
        self.idleTimeout = idleTimeout
        self.receiveTimeout = receiveTimeout
        let thread = Thread { [self] in serve() }
        thread.name = "LoopbackHTTPServer"
        thread.start()
    }

    deinit { stop() }

    /// `http://127.0.0.1:<port>`.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }

    /// `METHOD path` of every request whose head declared a body that did not arrive whole.
    var truncatedRequests: [String] { lock.withLock { truncated } }

    /// Stops accepting, shuts the open connections down, waits for every thread to end and closes the socket. A
    /// handler still running is waited for. Later calls do nothing.
    func stop() {
        let first: Bool = lock.withLock {
            defer { stopping = true }
            return !stopping
        }
        guard first else { return }
        wakeAcceptingThread()
        shutdown(listener, Int32(SHUT_RDWR))
        finished.wait()
        lock.withLock {
            for connection in open { shutdown(connection, Int32(SHUT_RDWR)) }
        }
        connections.wait()
        close(listener)
    }

    /// Connects to the server once, so a thread blocked in `accept` returns and sees that the server is stopping
    /// (on Darwin `shutdown` does not wake `accept`).
    private func wakeAcceptingThread() {
        if let fd = Self.connectedSocket(port: port) { close(fd) }
    }

    /// A socket connected to 127.0.0.1:`port`, or nil when the connection fails; the caller closes it.
    static func connectedSocket(port: UInt16) -> Int32? {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    private var isStopping: Bool { lock.withLock { stopping } }

    private func serve() {
        defer { finished.signal() }
        while !isStopping {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            let admitted: Bool = lock.withLock {
                guard !stopping else { return false }
                open.insert(connection)
                return true
            }
            guard admitted else {
                close(connection)
                return
            }
            connections.enter()
            let thread = Thread { [self] in
                defer { connections.leave() }
                handle(connection)
                lock.withLock {
                    open.remove(connection)
                    close(connection)
                }
            }
            thread.name = "LoopbackHTTPServer connection"
            thread.start()
        }
    }

    /// Serves the requests of one connection until it ends.
    private func handle(_ connection: Int32) {
        #if canImport(Darwin)
        var noSignal: Int32 = 1
        setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &noSignal, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var reader = HTTPConnectionReader(connection: connection, idleTimeout: idleTimeout, receiveTimeout: receiveTimeout)
        var served = 0
        while !isStopping {
            switch reader.next() {
            case .closed:
                return
            case .malformed:
                write(ServerResponse(status: 400, body: Array("malformed request".utf8)), keepAlive: false, to: connection)
                return
            case .truncated(let summary, let declared, let received):
                lock.withLock { truncated.append("\(summary) (\(received) of \(declared) body bytes)") }
                return
            case .request(var request):
                request.isOnReusedConnection = served > 0
                served += 1
                let response = handler(request)
                if response.dropsConnection { return }
                if response.streamedChunks > 0 {
                    stream(response, to: connection)
                    _ = reader.next()   // until the client closes the connection (or leaves it idle)
                    return
                }
                let keepAlive = request.headers["connection"]?.lowercased() != "close" && !isStopping
                write(response, keepAlive: keepAlive, to: connection)
                if !keepAlive { return }
            }
        }
    }

    private func write(_ response: ServerResponse, keepAlive: Bool, to connection: Int32) {
        var head = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\n"
        var headers = response.headers
        headers["Content-Length"] = String(response.body.count)
        headers["Connection"] = keepAlive ? "keep-alive" : "close"
        if !response.body.isEmpty, headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        guard response.trickle > .zero else {
            sendAll(Array((head + "\r\n").utf8) + response.body, to: connection)
            return
        }
        guard sendAll(Array((head + "\r\n").utf8), to: connection) else { return }
        let pause = Double(response.trickle.components.seconds) + Double(response.trickle.components.attoseconds) / 1e18
        for start in stride(from: 0, to: response.body.count, by: 4_096) {
            Thread.sleep(forTimeInterval: pause)
            guard sendAll(Array(response.body[start..<min(start + 4_096, response.body.count)]), to: connection) else { return }
        }
    }

    /// Sends the head of `response` without `Content-Length`, its body, then its streamed chunks.
    private func stream(_ response: ServerResponse, to connection: Int32) {
        var head = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\nConnection: close\r\n"
        for (name, value) in response.headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        guard sendAll(Array((head + "\r\n").utf8) + response.body, to: connection) else { return }
        for _ in 0..<response.streamedChunks {
            guard sendAll(response.streamedChunk, to: connection) else { return }
        }
    }

    /// Sends all of `bytes`; false when the connection failed.
    @discardableResult
    private func sendAll(_ bytes: [UInt8], to connection: Int32) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Self.sendFlags) }
            guard count > 0 else { return false }
            sent += count
        }
        return true
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
}
