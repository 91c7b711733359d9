import Foundation
import Testing
@testable import OfflineSync
#if canImport(Glibc)
import Glibc
#endif

/// An answer that arrives together with the deadline, or with the caller's cancellation: whichever comes first
/// wins, the call returns, and nothing deadlocks (cancelling a task awaiting `URLSession.data(for:)` while the
/// session finished the same transfer once hung the whole suite).
@Suite(.timeLimit(.minutes(1)))
struct DeadlineRaceTests {
    /// A server answering every request after `delays[n % delays.count]` microseconds.
    static func server(delays: [UInt32]) throws -> LoopbackHTTPServer {
        let requests = LockedValue(0)
        return try LoopbackHTTPServer { _ in
            let n = requests.withLock { count in
                defer { count += 1 }
                return count
            }
            usleep(delays[n % delays.count])
            return ServerResponse(status: 200, body: Array("[]".utf8))
        }
    }

    @Test func answersThatArriveWithTheDeadlineEndEitherWayAndNeverHang() async throws {
        let server = try Self.server(delays: [24_000, 27_000, 30_000, 33_000, 36_000])
        defer { server.stop() }
        var configuration = HTTPRemoteConfiguration(timeout: .milliseconds(30))
        configuration.retryPolicy = HTTPRetryPolicy(maximumAttempts: 1)
        let remote = HTTPRemote(baseURL: server.baseURL, configuration: configuration)
        var answered = 0, timedOut = 0
        for _ in 0..<60 {
            do {
                _ = try await remote.read(Query(table: "T"))
                answered += 1
            } catch RemoteError.network(let message) where message.contains("timed out") {
                timedOut += 1
            }
        }
        #expect(answered + timedOut == 60)
    }

    @Test func cancellationsThatArriveWithTheAnswerEndEitherWayAndNeverHang() async throws {
        let server = try Self.server(delays: [2_000, 4_000, 6_000])
        defer { server.stop() }
        let remote = HTTPRemote(baseURL: server.baseURL)
        for round in 0..<60 {
            let call = Task { try await remote.read(Query(table: "T")) }
            try await Task.sleep(for: .microseconds(1_000 + (round % 5) * 1_000))
            call.cancel()
            switch await call.result {
            case .success: break
            case .failure(let error): #expect(error is CancellationError || "\(error)".contains("cancel"), "\(error)")
            }
        }
    }
}
