import Foundation

/// A file endpoint on the loopback server for the attachment tests: `PUT`, `GET` and `DELETE /files/<id>`, with a log
/// of the requests and faults a test can set: the next requests answered 500, uploads stored and then not answered
/// (the connection dropped), answers held back, file bodies sent slowly.
final class BlobServer: @unchecked Sendable {
    private let lock = NSLock()
    private var files: [String: [UInt8]] = [:]
    private var log: [String] = []
    private var failing = 0
    private var failureStatus = 500
    private var echoesHeaders = false
    private var dropsAfterStoring = 0
    private var answerDelay: Duration = .zero
    private var bodyTrickle: Duration = .zero
    private var server: LoopbackHTTPServer?

    /// Starts the server; `token`, when set, is the bearer token every request must carry.
    init(token: String? = nil) throws {
        server = try LoopbackHTTPServer { [unowned self] request in self.handle(request, token: token) }
    }

    deinit { server?.stop() }

    /// The URL of attachment `id`'s file.
    func url(of id: String) -> URL {
        URL(string: "http://127.0.0.1:\(server?.port ?? 0)/files/\(id)")!
    }

    /// The stored files, by id.
    var stored: [String: [UInt8]] { lock.withLock { files } }
    /// `METHOD id` of every request received, in order.
    var requests: [String] { lock.withLock { log } }

    /// Answers the next `count` requests `status` (500 by default) without acting; with `echoingHeaders` the
    /// answer's body repeats the request's headers, as a debugging server may.
    func failNext(_ count: Int, status: Int = 500, echoingHeaders: Bool = false) {
        lock.withLock {
            failing = count
            failureStatus = status
            echoesHeaders = echoingHeaders
        }
    }
    /// Stores the next `count` uploads and then drops their connections without answering.
    func dropAfterStoring(_ count: Int) { lock.withLock { dropsAfterStoring = count } }
    /// Waits `delay` before every answer.
    func delayAnswers(by delay: Duration) { lock.withLock { answerDelay = delay } }
    /// Sends every file body 4 KiB at a time, `pause` before each part.
    func trickleBodies(every pause: Duration) { lock.withLock { bodyTrickle = pause } }
    /// Puts a file on the server as another device would have.
    func put(_ id: String, _ bytes: [UInt8]) { lock.withLock { files[id] = bytes } }

    func stop() { server?.stop() }

    private func handle(_ request: ServerRequest, token: String?) -> ServerResponse {
        guard request.path.hasPrefix("/files/") else { return ServerResponse(status: 404) }
        let id = String(request.path.dropFirst("/files/".count))
        let (fail, drop, delay) = lock.withLock { () -> (Int?, Bool, Duration) in
            log.append("\(request.method) \(id)")
            if failing > 0 {
                failing -= 1
                return (failureStatus, false, answerDelay)
            }
            let drop = request.method == "PUT" && dropsAfterStoring > 0
            if drop { dropsAfterStoring -= 1 }
            return (nil, drop, answerDelay)
        }
        if delay > .zero { Thread.sleep(forTimeInterval: Double(delay.components.attoseconds) / 1e18 + Double(delay.components.seconds)) }
        if let token, request.headers["authorization"] != "Bearer \(token)" { return ServerResponse(status: 401) }
        if let fail {
            let echo = request.headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
            return ServerResponse(status: fail, body: Array((lock.withLock { echoesHeaders } ? echo : "injected").utf8))
        }
        switch request.method {
        case "PUT":
            lock.withLock { files[id] = request.body }
            return drop ? .dropped : ServerResponse(status: 201)
        case "GET":
            guard let (bytes, trickle) = lock.withLock({ files[id].map { ($0, bodyTrickle) } }) else { return ServerResponse(status: 404) }
            return ServerResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: bytes, trickle: trickle)
        case "DELETE":
            let existed = lock.withLock { files.removeValue(forKey: id) != nil }
            return ServerResponse(status: existed ? 204 : 404)
        default:
            return ServerResponse(status: 405)
        }
    }
}
