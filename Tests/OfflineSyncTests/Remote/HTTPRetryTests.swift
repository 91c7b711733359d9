import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Retries of transient failures: the pure policy with exact waits, and `HTTPRemote` on a stub server with a
/// recorded, never sleeping wait.
struct HTTPRetryTests {
    static let policy = HTTPRetryPolicy(maximumAttempts: 4, initialDelay: .milliseconds(500), maximumDelay: .seconds(3))

    @Test func waitsAreFullJitterUnderADoublingBound() {
        #expect(Self.policy.delay(afterAttempt: 1, retryAfter: nil, unit: 0.5) == .milliseconds(250))
        #expect(Self.policy.delay(afterAttempt: 2, retryAfter: nil, unit: 0.5) == .milliseconds(500))
        #expect(Self.policy.delay(afterAttempt: 3, retryAfter: nil, unit: 0.999) == .milliseconds(1998))
        #expect(Self.policy.delay(afterAttempt: 3, retryAfter: nil, unit: 0) == .zero)
        #expect(HTTPRetryPolicy(maximumAttempts: 9, maximumDelay: .seconds(3)).delay(afterAttempt: 8, retryAfter: nil, unit: 1) == .seconds(3))
        #expect(Self.policy.delay(afterAttempt: 4, retryAfter: nil, unit: 0.5) == nil)
        #expect(HTTPRetryPolicy.none.delay(afterAttempt: 1, retryAfter: nil, unit: 0.5) == nil)
    }

    @Test func retryAfterIsWaitedAndOneBeyondTheMaximumEndsTheRetries() throws {
        #expect(Self.policy.delay(afterAttempt: 1, retryAfter: .seconds(2), unit: 0.1) == .seconds(2))
        #expect(Self.policy.delay(afterAttempt: 1, retryAfter: .seconds(60), unit: 0.1) == nil)
        let now = try #require(ISO8601DateFormatter().date(from: "2026-11-25T10:00:00Z"))
        #expect(HTTPRetryPolicy.retryAfter("7", now: now) == .seconds(7))
        #expect(HTTPRetryPolicy.retryAfter("Wed, 25 Nov 2026 10:00:05 GMT", now: now) == .seconds(5))
        #expect(HTTPRetryPolicy.retryAfter("Wed, 25 Nov 2026 09:00:00 GMT", now: now) == .zero)
        #expect(HTTPRetryPolicy.retryAfter("soon", now: now) == nil)
        #expect(HTTPRetryPolicy.retryAfter("-1", now: now) == nil)
    }

    @Test(arguments: [408, 429, 500, 502, 503, 504])
    func transientStatusesAreRetriedAndOthersAreNot(_ status: Int) {
        #expect(HTTPRetryPolicy.isTransient(status: status))
        for other in [200, 400, 401, 404, 409, 412] { #expect(!HTTPRetryPolicy.isTransient(status: other)) }
    }

    /// Waits the remote asked for, recorded instead of slept.
    final class Waits: @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: [Duration] = []
        var all: [Duration] { lock.withLock { recorded } }
        func record(_ wait: Duration) { lock.withLock { recorded.append(wait) } }
    }

    private func remote(_ stub: StubServer, waits: Waits, policy: HTTPRetryPolicy = policy) -> HTTPRemote {
        var remote = HTTPRemote(baseURL: stub.baseURL, apiVersion: .v3, authToken: "t",
                                configuration: HTTPRemoteConfiguration(retryPolicy: policy), session: StubServer.session)
        remote.retrySleep = { waits.record($0) }
        remote.jitter = { 0.5 }
        remote.now = { Date(timeIntervalSince1970: 0) }
        return remote
    }

    private static let ok = StubReply.response(status: 200, headers: [:], body: Array("[]".utf8))

    @Test func transientFailuresAreRetriedWithTheirWaitsUntilAnAnswer() async throws {
        let stub = StubServer(replies: [.failure(.networkConnectionLost), .response(status: 503, headers: [:], body: []),
                                        .response(status: 429, headers: ["Retry-After": "2"], body: []), Self.ok])
        let waits = Waits()
        let page = try await remote(stub, waits: waits).read(Query(table: "T"))
        #expect(page.items.isEmpty)
        #expect(stub.requests.count == 4)
        #expect(waits.all == [.milliseconds(250), .milliseconds(500), .seconds(2)])
    }

    @Test func theLastFailureIsThrownOnceTheAttemptsAreUsed() async throws {
        let stub = StubServer(replies: Array(repeating: .response(status: 502, headers: [:], body: Array("down".utf8)), count: 5))
        let waits = Waits()
        let error = await #expect(throws: RemoteError.self) { try await remote(stub, waits: waits).read(Query(table: "T")) }
        guard case .server(let status, _)? = error else { Issue.record("expected .server, got \(String(describing: error))"); return }
        #expect(status == 502 && stub.requests.count == 4 && waits.all.count == 3)
    }

    @Test func otherAnswersAreNotRetried() async throws {
        let stub = StubServer(replies: [.response(status: 400, headers: [:], body: []), Self.ok])
        let waits = Waits()
        await #expect(throws: RemoteError.self) { try await remote(stub, waits: waits).read(Query(table: "T")) }
        #expect(stub.requests.count == 1 && waits.all.isEmpty)
    }

    @Test func cancellationDuringAWaitEndsTheCall() async throws {
        let stub = StubServer(replies: [.response(status: 503, headers: [:], body: []), Self.ok])
        var remote = HTTPRemote(baseURL: stub.baseURL, apiVersion: .v3,
                                configuration: HTTPRemoteConfiguration(retryPolicy: Self.policy), session: StubServer.session)
        let waiting = AsyncStream<Void>.makeStream()
        remote.retrySleep = { _ in
            waiting.continuation.yield()
            try await Task.sleep(for: .seconds(3600))
        }
        let call = Task { [remote] in try await remote.read(Query(table: "T")) }
        for await _ in waiting.stream { break }
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(stub.requests.count == 1)
    }
}
