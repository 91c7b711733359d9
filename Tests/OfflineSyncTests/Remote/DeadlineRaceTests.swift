import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
#if canImport(Glibc)
import Glibc
#endif

/// An answer that arrives together with the deadline, or with the caller's cancellation: whichever comes first
/// wins, the call returns, and nothing deadlocks (cancelling a task awaiting `URLSession.data(for:)` while the
/// session finished the same transfer once hung the whole suite). Each call must end within ``hangBound`` of its
/// answer or cancellation, however loaded the machine: longer is a hang, reported with the call it happened in.
@Suite(.timeLimit(.minutes(10)))
struct DeadlineRaceTests {
    /// How long a call may take to end after its answer or cancellation before it counts as hung.
    static let hangBound = Duration.seconds(30)

    /// The call's result, or nil when it is still running ``hangBound`` after this was called.
    static func result<Value: Sendable>(of call: Task<Value, any Error>) async -> Result<Value, any Error>? {
        await withTaskGroup(of: Result<Value, any Error>?.self) { group in
            group.addTask { await call.result }
            group.addTask {
                try? await Task.sleep(for: hangBound)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

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
        for round in 0..<60 {
            guard let result = await Self.result(of: Task { try await remote.read(Query(table: "T")) }) else {
                Issue.record("call \(round) hung: no answer and no time-out after \(Self.hangBound)")
                return
            }
            switch result {
            case .success: answered += 1
            case .failure(RemoteError.network(let message)) where message.contains("timed out"): timedOut += 1
            case .failure(let error): Issue.record("call \(round) failed otherwise: \(error)")
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
            guard let result = await Self.result(of: call) else {
                Issue.record("call \(round) hung: it had not ended \(Self.hangBound) after its cancellation")
                return
            }
            switch result {
            case .success: break
            case .failure(let error): #expect(error is CancellationError || "\(error)".contains("cancel"), "\(error)")
            }
        }
    }
}
