import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Security checks made before anything is sent, and how remotes describe themselves.
struct TransportPolicyTests {
    @Test(arguments: ["localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]", "LOCALHOST", "app.localhost"])
    func loopbackHostsAreRecognised(host: String) {
        #expect(TransportPolicy.isLoopback(host))
    }

    @Test(arguments: ["example.com", "127.0.0.1.evil.com", "128.0.0.1", "10.0.0.1", "localhost.evil.com", "127.0.0.256", "::2"])
    func otherHostsAreNotLoopback(host: String) {
        #expect(!TransportPolicy.isLoopback(host))
    }

    @Test func tokenOverPlainHTTPIsRefused() throws {
        let url = try #require(URL(string: "http://example.com"))
        #expect(throws: HTTPRemoteError.insecureTokenTransport(host: "example.com")) {
            try TransportPolicy.check(baseURL: url, authToken: "t", configuration: HTTPRemoteConfiguration())
        }
    }

    @Test func tokenOverPlainHTTPIsAllowedWhenAsked() throws {
        let url = try #require(URL(string: "http://example.com"))
        try TransportPolicy.check(baseURL: url, authToken: "t",
                                  configuration: HTTPRemoteConfiguration(allowsInsecureToken: true))
    }

    @Test(arguments: ["http://127.0.0.1:8080", "http://localhost", "https://example.com", "http://example.com"])
    func allowedCombinations(url: String) throws {
        let base = try #require(URL(string: url))
        let token: String? = url == "http://example.com" ? nil : "t"
        try TransportPolicy.check(baseURL: base, authToken: token, configuration: HTTPRemoteConfiguration())
    }

    @Test(arguments: ["ftp://example.com", "file:///tmp/x", "relative/path"])
    func nonHTTPBaseURLsAreRefused(url: String) throws {
        let base = try #require(URL(string: url))
        #expect(throws: HTTPRemoteError.self) {
            try TransportPolicy.check(baseURL: base, authToken: nil, configuration: HTTPRemoteConfiguration())
        }
    }

    @Test func headerInjectionIsRefused() throws {
        let base = try #require(URL(string: "https://example.com"))
        #expect(throws: HTTPRemoteError.invalidHeaderValue(name: "auth token")) {
            try TransportPolicy.check(baseURL: base, authToken: "a\r\nX-Evil: 1", configuration: HTTPRemoteConfiguration())
        }
        #expect(throws: HTTPRemoteError.invalidHeaderValue(name: "installation id")) {
            try TransportPolicy.check(baseURL: base, authToken: nil,
                                      configuration: HTTPRemoteConfiguration(installationID: "x\ny"))
        }
    }

    @Test func descriptionNeverShowsTheToken() throws {
        let remote = HTTPRemote(baseURL: try #require(URL(string: "https://h")), authToken: "s3cret")
        #expect(!remote.description.contains("s3cret"))
        var dumped = ""
        dump(remote, to: &dumped)
        #expect(!dumped.contains("s3cret"))
        #expect(!String(reflecting: remote).contains("s3cret"))
        #expect(!String(describing: HTTPRemoteError.insecureTokenTransport(host: "h")).contains("s3cret"))
    }

    @Test func timeoutIsConvertedToSeconds() {
        #expect(HTTPRemoteConfiguration(timeout: .milliseconds(1500)).timeoutInterval == 1.5)
        #expect(HTTPRemoteConfiguration(timeout: .zero).timeoutInterval == 0.001)
        #expect(HTTPRemoteConfiguration().timeoutInterval == 60)
    }

    @Test func installationIDIsStableWithinAProcess() {
        #expect(InstallationID.current == InstallationID.current)
        #expect(InstallationID.make() != InstallationID.make())
    }

    @Test(arguments: [URLError.Code.timedOut, .notConnectedToInternet, .cannotFindHost, .networkConnectionLost,
                      .secureConnectionFailed, .badURL])
    func urlErrorsBecomeNetworkErrors(code: URLError.Code) throws {
        let request = try HTTPTableRequestBuilder(apiVersion: .v2, authToken: "tok", installationID: "i")
            .read(Query(table: "T"))
        let error = TransportPolicy.networkError(URLError(code), request: request, timeout: 2.5)
        guard case RemoteError.network(let message) = error else { Issue.record("got \(error)"); return }
        #expect(message.hasPrefix("GET /tables/T "))
        #expect(!message.contains("tok"))
    }

    @Test func timeoutMessageNamesTheTimeout() throws {
        let request = try HTTPTableRequestBuilder(apiVersion: .v2, authToken: nil, installationID: "i").read(Query(table: "T"))
        let error = TransportPolicy.networkError(URLError(.timedOut), request: request, timeout: 2.5)
        #expect(String(describing: error).contains("timed out after 2.5 s"))
    }

    @Test func cancellationStaysCancellation() throws {
        let request = try HTTPTableRequestBuilder(apiVersion: .v2, authToken: nil, installationID: "i").read(Query(table: "T"))
        #expect(TransportPolicy.networkError(CancellationError(), request: request, timeout: 1) is CancellationError)
    }
}

/// Installation ids kept across launches.
struct InstallationIDTests {
    @Test func storedIDIsMadeOnceAndKept() throws {
        let temporary = TemporaryDirectory(creating: true)
        defer { temporary.remove() }
        let directory = temporary.url
        let first = try InstallationID.stored(in: directory)
        #expect(try InstallationID.stored(in: directory) == first)
        #expect(UUID(uuidString: first) != nil)
    }

    @Test(arguments: ["", "has space", "line\nbreak", String(repeating: "x", count: 129)])
    func unusableStoredIDIsReplaced(content: String) throws {
        let temporary = TemporaryDirectory(creating: true)
        defer { temporary.remove() }
        let directory = temporary.url
        try Data(content.utf8).write(to: directory.appendingPathComponent(InstallationID.fileName))
        let id = try InstallationID.stored(in: directory)
        #expect(id != content)
        #expect(try InstallationID.stored(in: directory) == id)
    }

    @Test func surroundingWhiteSpaceIsIgnored() throws {
        let temporary = TemporaryDirectory(creating: true)
        defer { temporary.remove() }
        let directory = temporary.url
        try Data("my-id\n".utf8).write(to: directory.appendingPathComponent(InstallationID.fileName))
        #expect(try InstallationID.stored(in: directory) == "my-id")
    }

    @Test func unwritableDirectoryThrows() {
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/deeper")
        #expect(throws: (any Error).self) { try InstallationID.stored(in: missing) }
    }
}
