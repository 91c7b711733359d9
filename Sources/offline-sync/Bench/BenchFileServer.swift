import Foundation
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// The file endpoint A1 measures attachments against: HTTP/1.1 on 127.0.0.1 (an ephemeral port), `PUT`, `GET` and
/// `DELETE /files/<id>` kept in memory, every answer held back by `latency` (a network's round trip). One thread per
/// connection, so requests in flight are served at once; `stop()` closes the listener and the connections.
final class BenchFileServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let latency: Duration
    private let lock = NSLock()
    private var files: [String: [UInt8]] = [:]
    private var connections: Set<Int32> = []
    private var stopped = false

    init(latency: Duration) throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw BenchFailure.checkFailed(workload: "A1", detail: "socket failed: errno \(errno)") }
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            close(fd)
            throw BenchFailure.checkFailed(workload: "A1", detail: "bind/listen failed: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        self.latency = latency
        Thread { [self] in acceptConnections() }.start()
    }

    /// How many files the server holds.
    var fileCount: Int { lock.withLock { files.count } }

    /// The URL of attachment `id`'s file.
    func url(of id: String) -> URL? { URL(string: "http://127.0.0.1:\(port)/files/\(id)") }

    func stop() {
        let open = lock.withLock { () -> Set<Int32> in
            stopped = true
            return connections
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for connection in open { shutdown(connection, Int32(SHUT_RDWR)) }
    }

    private func acceptConnections() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            let admitted = lock.withLock { () -> Bool in
                if stopped { return false }
                connections.insert(connection)
                return true
            }
            guard admitted else {
                close(connection)
                return
            }
            Thread { [self] in serve(connection) }.start()
        }
    }

    /// Answers the requests of one connection until the client closes it.
    private func serve(_ connection: Int32) {
        defer {
            lock.withLock { _ = connections.remove(connection) }
            close(connection)
        }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            // The head, then as much body as it declares.
            var headEnd: Int?
            while headEnd == nil {
                headEnd = Self.endOfHead(in: buffer)
                if headEnd != nil { break }
                let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                buffer.append(contentsOf: chunk[..<count])
            }
            guard let end = headEnd else { return }
            let head = String(decoding: buffer[..<end], as: UTF8.self).split(separator: "\r\n")
            let requestLine = head.first?.split(separator: " ") ?? []
            guard requestLine.count >= 2 else { return }
            var declared = 0
            var closes = false
            for line in head.dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2 else { continue }
                if parts[0].lowercased() == "content-length" { declared = Int(parts[1]) ?? 0 }
                if parts[0].lowercased() == "connection", parts[1].lowercased() == "close" { closes = true }
            }
            while buffer.count < end + 4 + declared {
                let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                buffer.append(contentsOf: chunk[..<count])
            }
            let body = Array(buffer[(end + 4)..<(end + 4 + declared)])
            buffer.removeFirst(end + 4 + declared)
            let (status, answer) = respond(method: String(requestLine[0]), path: String(requestLine[1]), body: body)
            Thread.sleep(forTimeInterval: Double(latency.components.seconds) + Double(latency.components.attoseconds) / 1e18)
            let headText = "HTTP/1.1 \(status) \(status < 300 ? "OK" : "Error")\r\nContent-Length: \(answer.count)\r\n"
                + "Content-Type: application/octet-stream\r\nConnection: \(closes ? "close" : "keep-alive")\r\n\r\n"
            var bytes = Array(headText.utf8)
            bytes.append(contentsOf: answer)
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Self.sendFlags) }
                guard count > 0 else { return }
                sent += count
            }
            if closes { return }
        }
    }

    #if canImport(Glibc)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let sendFlags: Int32 = 0
    #endif

    private func respond(method: String, path: String, body: [UInt8]) -> (Int, [UInt8]) {
        guard path.hasPrefix("/files/") else { return (404, []) }
        let id = String(path.dropFirst("/files/".count))
        return lock.withLock {
            switch method {
            case "PUT":
                files[id] = body
                return (201, [])
            case "GET":
                return files[id].map { (200, $0) } ?? (404, [])
            case "DELETE":
                return (files.removeValue(forKey: id) == nil ? 404 : 204, [])
            default:
                return (405, [])
            }
        }
    }

    /// Where the head's blank line starts, or nil.
    private static func endOfHead(in buffer: [UInt8]) -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }
}
