import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Every answer maps to a result or a ``RemoteError``; malformed bodies never crash.
struct RemoteResponseDecoderTests {
    private let decoder = RemoteResponseDecoder(secrets: ["s3cret"])
    private let builder = HTTPTableRequestBuilder(apiVersion: .v2, authToken: nil, installationID: "i")
    private let tableURL = "https://host/tables/T"

    private func response(_ status: Int, _ body: String, headers: [String: String] = [:]) -> RemoteResponse {
        RemoteResponse(status: status, headers: headers, body: Array(body.utf8))
    }

    private func pageError(_ body: String) throws -> RemoteError? {
        let request = try builder.read(Query(table: "T"))
        if case .failure(let error) = decoder.page(response(200, body), for: request, tableURL: tableURL) { return error }
        return nil
    }

    @Test(arguments: [
        "", "<html></html>", "[{\"id\":1}", "{\"results\":5}", "{\"items\":[1]}", "{\"items\":[],\"count\":\"1\"}",
        "{\"items\":[],\"count\":-1}", "{\"items\":[],\"count\":1.5}", "{\"items\":[],\"nextLink\":[]}", "{\"id\":\"a\"}",
        "\"text\"", "42", "null", "{\"items\":[null]}", "[[]]", "\u{FF}\u{FE}",
    ])
    func malformedPagesAreInvalidResponses(body: String) throws {
        let error = try pageError(body)
        guard case .invalidResponse(let message)? = error else {
            Issue.record("expected invalidResponse for \(body), got \(String(describing: error))")
            return
        }
        #expect(message.hasPrefix("GET /tables/T answered 200"))
    }

    @Test(arguments: [
        ("[]", 0, nil), ("[{\"id\":\"a\"}]", 1, nil), ("{\"results\":[],\"count\":4}", 0, 4),
        ("{\"items\":[{\"id\":\"a\"}],\"count\":null,\"nextLink\":null}", 1, nil),
    ] as [(String, Int, Int?)])
    func validPagesDecode(body: String, items: Int, count: Int?) throws {
        let request = try builder.read(Query(table: "T"))
        guard case .value(let page) = decoder.page(response(200, body), for: request, tableURL: tableURL) else {
            Issue.record("page \(body) did not decode")
            return
        }
        #expect(page.items.count == items)
        #expect(page.totalCount == count)
    }

    @Test(arguments: [(401, "unauthorized"), (404, "notFound"), (410, "gone"), (400, "server"), (500, "server"),
                      (503, "server"), (302, "server")])
    func statusesMapToErrors(status: Int, kind: String) throws {
        let request = try builder.insert(["id": "a"], table: "T")
        guard case .failure(let error) = decoder.item(response(status, ""), for: request) else {
            Issue.record("no failure for \(status)")
            return
        }
        switch (kind, error) {
        case ("unauthorized", .unauthorized), ("notFound", .notFound), ("gone", .gone): break
        case ("server", .server(let code, let message)):
            #expect(code == status)
            #expect(message == "The request could not be completed (HTTP \(status)).")
        default: Issue.record("\(status) gave \(error)")
        }
        #expect(error.statusCode == status)
    }

    @Test(arguments: [
        ("\"plain json string\"", "plain json string"), ("{\"error\":\"e\",\"message\":\"m\"}", "e"),
        ("{\"description\":\"d\"}", "d"), ("{\"Message\":\"M\"}", "M"), ("{\"title\":\"t\"}", "t"),
        ("  text body \n", "text body"), ("{\"error\":{\"code\":\"X\",\"message\":\"nested\"}}", "nested"), ("{\"other\":1}", "{\"other\":1}"),
    ])
    func messagesComeFromTheBody(body: String, message: String) {
        #expect(decoder.message(response(500, body)) == message)
    }

    @Test func longMessagesAreCut() {
        let message = decoder.message(response(500, String(repeating: "x", count: 2000)))
        #expect(message.count == 501)
    }

    @Test func secretsAreRedactedFromMessages() throws {
        #expect(decoder.message(response(500, "{\"error\":\"bad s3cret\"}")) == "bad <redacted>")
        let request = try builder.insert(["id": "a"], table: "T")
        guard case .failure(.invalidResponse(let message)) = decoder.item(response(200, "oops s3cret"), for: request)
        else { Issue.record("expected invalidResponse"); return }
        #expect(!message.contains("s3cret"))
    }

    @Test func conflictBodyWithoutVersionIsNotTheRow() throws {
        let request = try builder.insert(["id": "a", "text": "x"], table: "T")
        guard case .conflictWithoutRow(409) = decoder.item(response(409, "{\"id\":\"a\",\"text\":\"x\"}"), for: request)
        else { Issue.record("an echo of the request is not the server's row"); return }
    }

    @Test func conflictBodyForAnotherIDIsNotTheRow() throws {
        let request = try builder.update(["id": "a"], table: "T")
        let body = "{\"id\":\"b\",\"version\":\"v\"}"
        guard case .conflictWithoutRow(412) = decoder.item(response(412, body), for: request)
        else { Issue.record("a row of another id is not this row"); return }
    }

    @Test func conflictRowMatchesIDCaseInsensitively() throws {
        let request = try builder.update(["id": "ABC"], table: "T")
        let outcome = decoder.item(response(412, "{\"id\":\"abc\",\"version\":\"v\"}", headers: ["etag": "W/\"v2\""]),
                                   for: request)
        guard case .failure(.preconditionFailed(let row)) = outcome else { Issue.record("expected 412"); return }
        #expect(row == ["id": "abc", "version": "v2"])
    }

    @Test func deleteAcceptsAnyBody() throws {
        let request = try builder.delete(id: "a", version: nil, table: "T")
        guard case .value(nil) = decoder.deletion(response(200, "<html>"), for: request) else {
            Issue.record("a delete's 2xx is success whatever the body"); return
        }
    }

    @Test(arguments: [("\"abc\"", "abc"), ("W/\"abc\"", "abc"), ("abc", "abc"), ("\"a\\\"b\"", "a\"b"), (" \"x\" ", "x")])
    func entityTagsBecomeVersions(tag: String, version: String) {
        #expect(RemoteResponse(status: 200, headers: ["ETag": tag]).entityTagVersion == version)
    }

    @Test func emptyEntityTagIsIgnored() {
        #expect(RemoteResponse(status: 200, headers: ["ETag": "  "]).entityTagVersion == nil)
    }

    /// A `version` that could not go back as `If-Match` (a line break, a control character, not a string) is an
    /// invalid answer naming the row, in an item, in a page and in the row of a 412, so it is never stored.
    @Test func aVersionThatCannotBeAHeaderValueIsAnInvalidResponse() throws {
        let update = try builder.update(["id": "a", "version": "v1"], table: "T")
        let answers = [response(200, #"{"id":"a","version":"v\n1"}"#), response(200, #"{"id":"a","version":5}"#),
                       response(200, #"{"id":"a"}"#, headers: ["ETag": "\"v\t1\""]),
                       response(412, #"{"id":"a","version":"v\r\nX: 1"}"#)]
        for answer in answers {
            guard case .failure(.invalidResponse(let message)) = decoder.item(answer, for: update) else {
                Issue.record("\(answer) was not refused")
                continue
            }
            #expect(message.contains("\"a\""), "\(message)")
        }
        let read = try builder.read(Query(table: "T"))
        let page = response(200, #"[{"id":"ok","version":"v1"},{"id":"b","version":"v\u0000"}]"#)
        guard case .failure(.invalidResponse(let message)) = decoder.page(page, for: read, tableURL: tableURL) else {
            Issue.record("the page was not refused")
            return
        }
        #expect(message.contains("record 1 (id \"b\")"), "\(message)")
    }
}

/// `nextLink` resolution and origin checks.
struct NextLinkTests {
    @Test(arguments: [
        ("$skip=2&$top=2", "https://h/api/tables/T?$skip=2&$top=2"),
        ("?$skip=2", "https://h/api/tables/T?$skip=2"),
        ("/api/tables/T?$skip=2", "https://h/api/tables/T?$skip=2"),
        ("https://h/api/tables/T?$skip=2", "https://h/api/tables/T?$skip=2"),
        ("$filter=(a eq 'x y')", "https://h/api/tables/T?$filter=(a%20eq%20'x%20y')"),
        ("$filter=a%20eq%201", "https://h/api/tables/T?$filter=a%20eq%201"),
    ])
    func linksResolveAgainstTheTable(link: String, url: String) {
        #expect(NextLink.resolve(link, tableURL: "https://h/api/tables/T")?.absoluteString == url)
    }

    @Test func emptyLinkIsNoLink() {
        #expect(NextLink.resolve("  ", tableURL: "https://h/tables/T") == nil)
    }

    @Test(arguments: [
        ("https://h/x", "https://h/y", true), ("https://h:443/x", "https://H/y", true), ("http://h/x", "https://h/y", false),
        ("https://h:8443/x", "https://h/y", false), ("https://evil/x", "https://h/y", false),
    ])
    func originsCompareSchemeHostAndPort(link: String, base: String, same: Bool) throws {
        let lhs = try #require(URL(string: link)), rhs = try #require(URL(string: base))
        #expect(NextLink.isSameOrigin(lhs, as: rhs) == same)
    }

    @Test(arguments: [
        ("https://h/api/tables/T?$skip=2", true), ("https://H:443/api/tables/t/", true), ("https://h/api/tables/U", false),
        ("https://h/api/tables/T/a", false), ("https://h/tables/T", false), ("https://h/api/tables/T/../U", false),
        ("https://h/api/tables/T/%2E%2E/U", false), ("https://other/api/tables/T", false), ("http://h/api/tables/T", false),
    ])
    func linksNameTheirTableAndNoOtherPath(link: String, isTable: Bool) throws {
        #expect(NextLink.isTable(try #require(URL(string: link)), tableURL: "https://h/api/tables/T") == isTable)
    }
}
