import Foundation
import Testing
@testable import OfflineSyncHTTP
import OfflineSync

/// What `HTTPAttachmentTransport`'s failures say and which of them it retries.
struct HTTPAttachmentMessageTests {
    actor FixedTokens: AuthenticationProvider {
        func token(refresh: Bool) async throws -> String { "att-s3cret-token" }
    }

    @Test func anErrorBodyThatEchoesTheTokenIsRedacted() async throws {
        let server = try BlobServer(token: "att-s3cret-token")
        defer { server.stop() }
        server.failNext(1, status: 400, echoingHeaders: true)
        let transport = HTTPAttachmentTransportTests.transport(server, authentication: FixedTokens())
        let error = await #expect(throws: RemoteError.self) { try await transport.delete(id: "r1") }
        guard case .server(let status, let message)? = error else {
            Issue.record("expected a server error, got \(String(describing: error))")
            return
        }
        #expect(status == 400)
        #expect(message.contains("authorization: Bearer <redacted>"), "\(message)")
        #expect(!message.contains("att-s3cret-token"), "\(message)")
    }

    @Test func a408IsRetriedAsTheDocumentationSays() async throws {
        let server = try BlobServer()
        defer { server.stop() }
        server.failNext(2, status: 408)
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let transport = HTTPAttachmentTransportTests.transport(server)
        try await transport.upload(try HTTPAttachmentTransportTests.file([7, 8, 9], in: directory), id: "t1")
        #expect(server.stored["t1"] == [7, 8, 9])
        #expect(server.requests == ["PUT t1", "PUT t1", "PUT t1"])
    }
}
