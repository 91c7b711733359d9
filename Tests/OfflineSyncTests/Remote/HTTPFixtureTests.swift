import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Replays every fixture in `Fixtures/http/` through a `URLProtocol` stub: the requests sent must match
/// exactly (method, path, the set of query pairs, the protocol headers, the body) and the call must produce the
/// expected result or error.
struct HTTPFixtureTests {
    /// Headers the table protocol defines; every one of them the request carries must be expected by the fixture.
    static let protocolHeaders: Set<String> = [
        "zumo-api-version", "x-zumo-features", "x-zumo-installation-id", "x-zumo-auth", "authorization",
        "user-agent", "accept", "content-type", "if-match",
    ]

    @Test func fixturesExist() {
        #expect(HTTPFixture.names.count >= 30)
    }

    @Test(arguments: HTTPFixture.names)
    func fixtureReplays(_ name: String) async throws {
        let stub = StubServer(replies: [])
        let baseURL = HTTPFixture.wantsPlainHTTP(name) ? stub.plainBaseURL : stub.baseURL
        let fixture = try HTTPFixture.load(name, base: baseURL.absoluteString)
        stub.script(fixture.exchanges.map(\.reply))
        let remote = HTTPRemote(baseURL: baseURL, apiVersion: fixture.apiVersion, authToken: fixture.authToken,
                                configuration: HTTPRemoteConfiguration(installationID: HTTPFixture.installationID,
                                                                       retryPolicy: .none),   // one exchange each
                                session: StubServer.session)
        let outcome = await fixture.perform(on: remote)
        let sent = stub.requests
        #expect(sent.count == fixture.exchanges.count, "\(name): request count")
        for (request, expected) in zip(sent, fixture.exchanges) {
            check(request, against: expected, name)
        }
        try check(outcome, against: fixture.expect, name)
    }

    private func check(_ request: RecordedRequest, against expected: HTTPFixture.Exchange, _ name: String) {
        #expect(request.method == expected.method, "\(name): method")
        #expect(request.encodedPath == expected.path, "\(name): path")
        #expect(request.encodedQueryPairs.sorted() == expected.query.sorted(), "\(name): query pairs")
        for (header, value) in expected.headers {
            #expect(request.header(header) == value, "\(name): header \(header)")
        }
        let expectedNames = Set(expected.headers.keys.map { $0.lowercased() })
        for header in request.headers.keys where Self.protocolHeaders.contains(header.lowercased()) {
            #expect(expectedNames.contains(header.lowercased()), "\(name): unexpected header \(header)")
        }
        if let body = expected.body {
            #expect((try? JSONValue(parsing: request.body)) == body, "\(name): body")
        } else {
            #expect(request.body.isEmpty, "\(name): no body")
        }
    }

    private func check(_ outcome: Result<FixtureValue, any Error>, against expect: JSONObject, _ name: String) throws {
        switch outcome {
        case .success(.item(let item)):
            #expect(expect["item"]?.objectValue == item, "\(name): item")
        case .success(.done):
            #expect(expect["done"] == true, "\(name): expected \(expect)")
        case .success(.page(let page)):
            let expected = try #require(expect["page"]?.objectValue, "\(name): got a page")
            #expect(page.items.map(JSONValue.object) == expected["items"]?.arrayValue, "\(name): items")
            #expect(page.totalCount == expected["totalCount"]?.intValue.map { Int($0) }, "\(name): totalCount")
            #expect(page.nextLink?.absoluteString == expected["nextLink"]?.stringValue, "\(name): nextLink")
        case .failure(let error):
            let expected = try #require(expect["error"]?.objectValue, "\(name): unexpected error \(error)")
            check(error, against: expected, name)
        }
    }

    private func check(_ error: any Error, against expected: JSONObject, _ name: String) {
        let text = String(describing: error)
        if let fragment = expected["contains"]?.stringValue {
            #expect(text.contains(fragment), "\(name): \(text) lacks \(fragment)")
        }
        if let token = expected["notContains"]?.stringValue {
            #expect(!text.contains(token), "\(name): \(text) leaks \(token)")
        }
        switch (expected["case"]?.stringValue, error) {
        case ("conflict", RemoteError.conflict(let item)), ("preconditionFailed", RemoteError.preconditionFailed(let item)):
            #expect(item == expected["serverItem"]?.objectValue, "\(name): server item")
        case ("notFound", RemoteError.notFound), ("gone", RemoteError.gone), ("unauthorized", RemoteError.unauthorized),
             ("network", RemoteError.network), ("invalidResponse", RemoteError.invalidResponse):
            break
        case ("server", RemoteError.server(let status, let message)):
            #expect(status == expected["status"]?.intValue.map { Int($0) }, "\(name): status")
            if let wanted = expected["message"]?.stringValue { #expect(message == wanted, "\(name): message") }
        case ("httpRemote", is HTTPRemoteError):
            break
        default:
            Issue.record("\(name): expected \(expected["case"] ?? nil), got \(error)")
        }
    }
}
