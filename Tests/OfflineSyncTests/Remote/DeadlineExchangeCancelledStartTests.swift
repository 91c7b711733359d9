import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import OfflineSyncHTTP

/// A bounded exchange whose caller was cancelled before it started sends nothing: a write of a cancelled push never
/// reaches the server.
struct DeadlineExchangeCancelledStartTests {
    @Test func aCallerCancelledBeforeTheStartSendsNoRequest() async throws {
        let server = try TableProtocolServer()
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let request = server.exchangeRequest(table: "T", body: #"{"id":"a"}"#)
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await DeadlineExchange.run(request, session: session, timeout: .seconds(5), maximumBytes: 1 << 20)
        }
        let error = await #expect(throws: URLError.self) { try await call.value }
        #expect(error?.code == .cancelled)
        try await Task.sleep(for: .milliseconds(300))
        #expect(server.requests.isEmpty)
        #expect(server.rows("T").isEmpty)
    }
}
