import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// The HTTP answer decoder and the `nextLink` resolver against random statuses, headers and bodies: every answer
/// becomes a value or the `RemoteError` its status says, never a crash, and no message repeats the secret.
struct RemoteDecoderFuzzTests {
    static let secret = "s3cret-token"
    static let decoder = RemoteResponseDecoder(secrets: [secret])
    static let builder = HTTPTableRequestBuilder(apiVersion: .v3, authToken: nil, installationID: "i")
    static let tableURL = "https://host/tables/T"

    /// A random body: a valid page or item, a mutation of one, or a text that is no JSON at all.
    static func randomBody(_ generator: inout SplitMix64) -> [UInt8] {
        let item: JSONValue = ["id": "a", "version": "v1", "text": .string(secret)]
        let shapes: [JSONValue] = [
            [item, item], ["results": [item], "count": 1], ["items": [item], "count": 1, "nextLink": "$skip=1&$top=1"],
            item, ["error": .string("boom \(secret)")], ["items": [1], "count": "x"], .null, "text",
            JSONReaderFuzzTests.randomValue(&generator, depth: 3),
        ]
        var bytes = shapes[Int(generator.next() % UInt64(shapes.count))].jsonBytes()
        switch generator.next() % 4 {
        case 0: bytes = JSONReaderFuzzTests.mutate(bytes, &generator)
        case 1: bytes = Array("<html><body>\(secret) Bad Gateway</body></html>".utf8)
        case 2 where generator.next() % 2 == 0: bytes = []
        default: break
        }
        return bytes
    }

    static func randomResponse(_ generator: inout SplitMix64) -> RemoteResponse {
        let statuses = [200, 201, 204, 301, 400, 401, 403, 404, 409, 410, 412, 429, 500, 502, 503, 599, 0, 99, 1000]
        var headers: [String: String] = [:]
        if generator.next() % 2 == 0 {
            headers["ETag"] = ["\"v2\"", "W/\"v3\"", "\"\\\"q\\\"\"", "", "\"", "W/"][Int(generator.next() % 6)]
        }
        if generator.next() % 2 == 0 {
            headers["Content-Type"] = ["application/json", "text/html", "application/problem+json"][Int(generator.next() % 3)]
        }
        return RemoteResponse(status: statuses[Int(generator.next() % UInt64(statuses.count))], headers: headers,
                              body: randomBody(&generator))
    }

    /// Checks that a failure is the error its status says, and that no message leaks the secret.
    static func check<Value>(_ outcome: RemoteOutcome<Value>, _ response: RemoteResponse, round: Int) {
        switch outcome {
        case .value:
            #expect((200..<300).contains(response.status), "round \(round): a value for status \(response.status)")
        case .conflictWithoutRow(let status):
            #expect(status == response.status && [409, 412].contains(status), "round \(round)")
        case .failure(let error):
            #expect(!error.description.contains(secret), "round \(round): \(error)")
            switch (response.status, error) {
            case (401, .unauthorized), (404, .notFound), (410, .gone), (409, .conflict), (412, .preconditionFailed): break
            case (200..<300, .invalidResponse): break
            case (let status, .server(let reported, _)): #expect(status == reported, "round \(round)")
            default: Issue.record("round \(round): status \(response.status) gave \(error)")
            }
        }
    }

    @Test func randomAnswersDecodeToValuesOrTheErrorTheirStatusSays() throws {
        var generator = SplitMix64(seed: 31_337)
        let read = try Self.builder.read(Query(table: "T"))
        let insert = try Self.builder.insert(["id": "a"], table: "T")
        for round in 0..<FuzzBudget.cases(20_000) {
            let response = Self.randomResponse(&generator)
            Self.check(Self.decoder.page(response, for: read, tableURL: Self.tableURL), response, round: round)
            Self.check(Self.decoder.item(response, for: insert), response, round: round)
            Self.check(Self.decoder.deletion(response, for: insert), response, round: round)
        }
    }

    @Test func resolvedNextLinksNeverCrashAndAForeignOneIsNeverSameOrigin() {
        var generator = SplitMix64(seed: 8)
        let pieces = ["https://", "http://", "HTTPS://", "host", "evil", ":443", ":8443", "/tables/T", "?", "$skip=",
                      "100", "&", " ", "'", "%", "#", "@", "[::1]", "//", "\u{0}", "é", "\n"]
        guard let base = URL(string: Self.tableURL) else { Issue.record("no base URL"); return }
        for _ in 0..<FuzzBudget.cases(20_000) {
            let link = (0..<Int(generator.next() % 8)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
            guard let url = NextLink.resolve(link, tableURL: Self.tableURL) else { continue }
            if NextLink.isSameOrigin(url, as: base) {
                #expect(url.host?.lowercased() == "host" && url.scheme?.lowercased() == "https" && [nil, 443].contains(url.port),
                        "\(link) → \(url)")
            }
        }
    }
}
