import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// `HTTPAttachmentTransport` against the loopback file endpoint, its faults included, and under an attachment queue.
struct HTTPAttachmentTransportTests {
    static let quickRetries = HTTPRemoteConfiguration(
        timeout: .seconds(10), retryPolicy: HTTPRetryPolicy(maximumAttempts: 4, initialDelay: .milliseconds(1), maximumDelay: .milliseconds(5)))

    static func transport(_ server: BlobServer, authentication: (any AuthenticationProvider)? = nil,
                          configuration: HTTPRemoteConfiguration = quickRetries) -> HTTPAttachmentTransport {
        HTTPAttachmentTransport(url: { id in server.url(of: id) }, authentication: authentication, configuration: configuration)
    }

    static func file(_ bytes: [UInt8], in directory: TemporaryDirectory) throws -> URL {
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        let url = directory.url.appendingPathComponent(UUID().uuidString)
        try Data(bytes).write(to: url)
        return url
    }

    @Test func filesGoUpComeBackAndAreDeleted() async throws {
        let server = try BlobServer()
        defer { server.stop() }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let transport = Self.transport(server)
        let bytes = (0..<70_000).map { UInt8(truncatingIfNeeded: $0) }
        try await transport.upload(try Self.file(bytes, in: directory), id: "a1")
        #expect(server.stored["a1"] == bytes)
        let copy = directory.url.appendingPathComponent("copy")
        try await transport.download(id: "a1", to: copy)
        #expect(try [UInt8](Data(contentsOf: copy)) == bytes)
        try await transport.delete(id: "a1")
        #expect(server.stored["a1"] == nil)
        try await transport.delete(id: "a1")
        await #expect(throws: AttachmentTransportError.notFound(id: "a1")) { try await transport.download(id: "a1", to: copy) }
        #expect(server.requests == ["PUT a1", "GET a1", "DELETE a1", "DELETE a1", "GET a1"])
    }

    @Test func serverErrorsAndDroppedAnswersAreRetried() async throws {
        let server = try BlobServer()
        defer { server.stop() }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let transport = Self.transport(server)
        server.failNext(2)
        try await transport.upload(try Self.file([1, 2, 3], in: directory), id: "b1")
        #expect(server.requests == ["PUT b1", "PUT b1", "PUT b1"])
        server.dropAfterStoring(1)
        try await transport.upload(try Self.file([4, 5], in: directory), id: "b2")
        #expect(server.stored["b2"] == [4, 5])
        #expect(server.requests.filter { $0 == "PUT b2" }.count == 2, "the upload whose answer was lost is sent again")
    }

    @Test func aServerThatKeepsFailingFailsTheTransferWithItsStatus() async throws {
        let server = try BlobServer()
        defer { server.stop() }
        server.failNext(10)
        let transport = Self.transport(server)
        let error = await #expect(throws: RemoteError.self) {
            try await transport.download(id: "c1", to: URL(fileURLWithPath: "/nonexistent/c1"))
        }
        #expect(error?.statusCode == 500)
        #expect(server.requests.count == 4, "as many attempts as the policy allows")
    }

    actor Tokens: AuthenticationProvider {
        private(set) var asked: [Bool] = []
        func token(refresh: Bool) async throws -> String {
            asked.append(refresh)
            return refresh ? "fresh" : "stale"
        }
    }

    @Test func aBearerTokenIsSentAndRefreshedOnceAfterA401() async throws {
        let server = try BlobServer(token: "fresh")
        defer { server.stop() }
        let tokens = Tokens()
        let transport = Self.transport(server, authentication: tokens)
        let copy = URL(fileURLWithPath: "/nonexistent/d1")
        await #expect(throws: AttachmentTransportError.notFound(id: "d1")) { try await transport.download(id: "d1", to: copy) }
        #expect(await tokens.asked == [false, true])
    }

    @Test func aTokenIsNeverSentOverPlainHTTPToAnotherHost() async throws {
        let transport = HTTPAttachmentTransport(url: { id in URL(string: "http://files.example.com/\(id)")! },
                                                authentication: Tokens())
        await #expect(throws: HTTPRemoteError.self) { try await transport.delete(id: "e1") }
    }

    @Test func aQueueOverHTTPUploadsEachFileBeforeTheItemThatNamesIt() async throws {
        let server = try BlobServer()
        defer { server.stop() }
        server.delayAnswers(by: .milliseconds(20))
        let remote = ReferenceCheckingRemote(server: InMemoryRemote()) { id in server.stored[id] != nil }
        let device = try await AttachmentDevice(remote: remote, transport: Self.transport(server))
        defer { device.folder.remove() }
        for number in 0..<6 {
            let id = try await device.queue.add(Data(repeating: UInt8(number), count: 10_000))
            try await device.table.insert(["id": .string("i\(number)"), "photo": .string(id)])
        }
        server.failNext(1)
        try await device.context.push(settings: PushSettings(maximumConcurrentRequests: 4))
        #expect(await remote.referencesSent == 6)
        #expect(await remote.referencesBeforeFiles.isEmpty)
        #expect(server.stored.count == 6)
    }

    @Test func aDownloadCutByItsTimeoutLeavesNoFileAndTheNextAttemptGetsItWhole() async throws {
        let server = try BlobServer()
        defer { server.stop() }
        let bytes = (0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        server.put("slow", bytes)
        // 16 parts three seconds apart against a deadline of 1.5 s, which the whole body at 2 ms a part then meets
        // with room to spare on a loaded machine (a deadline of 0.3 s cut the second attempt too under a full suite).
        server.trickleBodies(every: .seconds(3))
        let impatient = HTTPRemoteConfiguration(timeout: .milliseconds(1_500), retryPolicy: .none)
        let device = try await AttachmentDevice(remote: InMemoryRemote(), transport: Self.transport(server, configuration: impatient))
        defer { device.folder.remove() }
        await #expect(throws: AttachmentError.self) { try await device.queue.file(for: "slow") }
        guard case .failed = try await device.queue.state(of: "slow") else {
            Issue.record("the cut download is not reported as failed")
            return
        }
        let partial = device.filesFolder.appendingPathComponent(".partial")
        #expect(try FileManager.default.contentsOfDirectory(atPath: partial.path).isEmpty, "the cut download left a partial file")
        #expect(!FileManager.default.fileExists(atPath: device.filesFolder.appendingPathComponent("slow").path))

        server.trickleBodies(every: .milliseconds(2))
        let file = try #require(try await device.queue.file(for: "slow"))
        #expect(try [UInt8](Data(contentsOf: file)) == bytes)
        #expect(try await device.queue.state(of: "slow") == .local)
    }
}
