import Foundation
import Testing
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// The test server itself, over raw sockets: connections kept alive, served at the same time, and a request whose
/// body never arrives recorded rather than answered (the end-to-end tests rely on all three).
struct LoopbackHTTPServerTests {
    @Test func aKeptAliveConnectionServesRequestAfterRequest() throws {
        let reused = LockedValue<[Bool]>([])
        let server = try LoopbackHTTPServer { request in
            reused.withLock { $0.append(request.isOnReusedConnection) }
            return ServerResponse(status: 200, body: Array("[]".utf8))
        }
        defer { server.stop() }
        let client = try #require(LoopbackHTTPServer.connectedSocket(port: server.port))
        defer { close(client) }
        for _ in 0..<2 {
            try write("GET /a HTTP/1.1\r\nHost: x\r\n\r\n", on: client)
            let answer = try #require(receiveAnswer(on: client))
            #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(answer.contains("Connection: keep-alive\r\n"))
        }
        #expect(reused.withLock { $0 } == [false, true])
    }

    @Test func aRequestAskingConnectionCloseEndsItsConnection() throws {
        let server = try LoopbackHTTPServer { _ in ServerResponse(status: 204) }
        defer { server.stop() }
        let client = try #require(LoopbackHTTPServer.connectedSocket(port: server.port))
        defer { close(client) }
        try write("DELETE /a HTTP/1.1\r\nConnection: close\r\n\r\n", on: client)
        #expect(receiveAnswer(on: client)?.contains("Connection: close\r\n") == true)
        #expect(receiveAnswer(on: client) == nil, "the connection stayed open")
    }

    @Test func aRequestWhoseBodyNeverArrivesIsRecordedAndGetsNoAnswer() throws {
        let handled = LockedValue(0)
        let server = try LoopbackHTTPServer { _ in
            handled.withLock { $0 += 1 }
            return ServerResponse(status: 201)
        }
        defer { server.stop() }
        let client = try #require(LoopbackHTTPServer.connectedSocket(port: server.port))
        defer { close(client) }
        try write("POST /tables/T HTTP/1.1\r\nContent-Length: 25\r\n\r\n{\"id\":", on: client)
        shutdown(client, Int32(SHUT_WR))
        #expect(receiveAnswer(on: client) == nil, "a request without its body was answered")
        #expect(server.truncatedRequests == ["POST /tables/T (6 of 25 body bytes)"])
        #expect(handled.withLock { $0 } == 0)
    }

    @Test func connectionsAreServedAtTheSameTime() throws {
        let rendezvous = Rendezvous(parties: 2)
        let server = try LoopbackHTTPServer { _ in
            // A server serving one connection at a time would hold the first request until its wait ends alone.
            let together = rendezvous.arrive(within: 60)
            return ServerResponse(status: 200, body: Array((together ? "together" : "alone").utf8))
        }
        defer { server.stop() }
        let first = try #require(LoopbackHTTPServer.connectedSocket(port: server.port))
        defer { close(first) }
        let second = try #require(LoopbackHTTPServer.connectedSocket(port: server.port))
        defer { close(second) }
        try write("GET /a HTTP/1.1\r\n\r\n", on: first)
        try write("GET /b HTTP/1.1\r\n\r\n", on: second)
        let answers = [receiveAnswer(on: first), receiveAnswer(on: second)]
        #expect(answers.allSatisfy { $0?.hasSuffix("\r\n\r\ntogether") == true }, "\(answers)")
    }

    private func write(_ text: String, on socket: Int32) throws {
        let bytes = Array(text.utf8)
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        let sent = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, flags) }
        guard sent == bytes.count else { throw FixtureError("send failed: errno \(errno)") }
    }

    /// One answer (head and a body of its `Content-Length`), or nil when the connection ends first; waits 60 s at most.
    private func receiveAnswer(on socket: Int32) -> String? {
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let text = String(decoding: data, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n") {
                let length = text.split(separator: "\r\n").first { $0.hasPrefix("Content-Length: ") }
                    .flatMap { Int($0.dropFirst("Content-Length: ".count)) } ?? 0
                if text[end.upperBound...].utf8.count >= length { return text }
            }
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            data += buffer[0..<count]
        }
    }
}
