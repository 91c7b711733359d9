import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import OfflineSyncHTTP

/// A table request is sent and answered while every thread of the cooperative pool is busy: its start and its
/// answer do not wait for a pool thread, so a deadline shorter than the busy spell does not pass for an answer that
/// came in time. (Exchanges started from a task of their own waited behind the busy work; on a loaded two-core
/// machine they timed out with the server never asked.)
struct DeadlineExchangeBusyPoolTests {
    @Test func anAnswerThatCameInTimeIsDeliveredWhileThePoolIsBusy() async throws {
        let server = try TableProtocolServer()
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let request = server.exchangeRequest(table: "T")
        // Queued before the exchange starts: they take every pool thread, this one too once it suspends.
        let busy = (0..<ProcessInfo.processInfo.activeProcessorCount).map { _ in
            Task.detached {
                let end = ContinuousClock.now + .seconds(3)
                while ContinuousClock.now < end {}
            }
        }
        let start = ContinuousClock.now
        let (_, response) = try await DeadlineExchange.run(request, session: session, timeout: .seconds(1), maximumBytes: 1 << 20)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(server.requests.count == 1)
        #expect(start.duration(to: .now) >= .seconds(1), "the pool was not busy: the test checked nothing")
        for task in busy { await task.value }
    }
}
