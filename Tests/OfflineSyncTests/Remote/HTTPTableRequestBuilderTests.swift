import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Request building without a network: paths, validation, headers and bodies.
struct HTTPTableRequestBuilderTests {
    private let v2 = HTTPTableRequestBuilder(apiVersion: .v2, authToken: nil, installationID: "inst")
    private let v3 = HTTPTableRequestBuilder(apiVersion: .v3, authToken: "tok", installationID: "inst")

    @Test func insertHeadersAreExactAndOrdered() throws {
        let request = try v2.insert(["id": "a"], table: "T")
        #expect(request.headers.map { "\($0.name): \($0.value)" } == [
            "ZUMO-API-VERSION: 2.0.0", "X-ZUMO-FEATURES: OL", "X-ZUMO-INSTALLATION-ID: inst",
            "User-Agent: OfflineSync/\(OfflineSyncVersion.current) (lang=Swift)", "Accept: application/json",
            "Content-Type: application/json",
        ])
    }

    @Test func v3UsesBearerTokenPutAndNoFeatures() throws {
        let request = try v3.update(["id": "a", "version": "v1"], table: "T")
        #expect(request.method == "PUT")
        #expect(request.header("Authorization") == "Bearer tok")
        #expect(request.header("X-ZUMO-AUTH") == nil)
        #expect(request.header("X-ZUMO-FEATURES") == nil)
        #expect(request.header("If-Match") == "\"v1\"")
        #expect(request.header("ZUMO-API-VERSION") == "3.0.0")
    }

    @Test func bodyDropsSystemPropertiesCaseInsensitively() throws {
        let request = try v2.update(["id": "a", "text": "x", "Version": "v", "createdAt": "c", "UPDATEDAT": "u",
                                     "deleted": false], table: "T")
        #expect(try JSONValue(parsing: request.body ?? []) == ["id": "a", "text": "x"])
    }

    @Test func insertNeverSendsIfMatch() throws {
        #expect(try v2.insert(["id": "a", "version": "v"], table: "T").header("If-Match") == nil)
    }

    @Test func emptyVersionSendsNoIfMatch() throws {
        #expect(try v2.update(["id": "a", "version": ""], table: "T").header("If-Match") == nil)
        #expect(try v2.delete(id: "a", version: "", table: "T").header("If-Match") == nil)
    }

    @Test func deleteHasNoBodyAndNoContentType() throws {
        let request = try v2.delete(id: "a", version: "v", table: "T")
        #expect(request.body == nil)
        #expect(request.header("Content-Type") == nil)
        #expect(request.header("X-ZUMO-FEATURES") == "OC,OL")
    }

    @Test(arguments: ["../x", "a/b", ".", "..", "", "a?b", "a+b", "a\"b", "a\\b", "a`b", "a\nb", "   "])
    func invalidIDsAreRefused(id: String) {
        #expect(throws: HTTPRemoteError.self) { try v2.delete(id: id, version: nil, table: "T") }
        #expect(throws: HTTPRemoteError.self) { try v2.update(["id": .string(id)], table: "T") }
        #expect(throws: HTTPRemoteError.self) { try v2.lookup(id: id, table: "T") }
    }

    @Test func aRefusalCarriesACodeTheTableAndWhatWasRefused() throws {
        let error = try #require(throws: HTTPRemoteError.self) { try v2.delete(id: "a/b", version: nil, table: "T") }
        #expect(error.code == .invalidID)
        #expect(error.table == "T" && error.subject == "a/b")
        #expect(error.description.contains("\"a/b\"") && error.description.contains("valid id"))
        #expect(error.code.description == "invalidID")
    }

    @Test(arguments: ["", "..", "../admin", "a/b", "a b", ".hidden", "-x", "t?x", String(repeating: "t", count: 256)])
    func invalidTableNamesAreRefused(table: String) {
        #expect(throws: HTTPRemoteError.invalidTableName(table)) { try v2.insert(["id": "a"], table: table) }
        #expect(throws: HTTPRemoteError.invalidTableName(table)) { try v2.read(Query(table: table)) }
    }

    @Test func nonStringInsertIDIsRefused() {
        #expect(throws: HTTPRemoteError.self) { try v2.insert(["id": 5], table: "T") }
    }

    @Test func nullInsertIDIsLeftToTheServer() throws {
        #expect(try v2.insert(["id": nil, "text": "x"], table: "T").itemID == nil)
    }

    @Test func updateWithoutIDIsRefused() {
        #expect(throws: HTTPRemoteError.missingID(table: "T")) { try v2.update(["text": "x"], table: "T") }
    }

    @Test func queryWithBadFieldNameIsRefused() {
        #expect(throws: HTTPRemoteError.self) { try v2.read(Query(table: "T", orderBy: [.ascending("a b")])) }
        #expect(throws: HTTPRemoteError.self) { try v2.read(Query(table: "T", filter: Field("x)or(1") == 1)) }
        #expect(throws: HTTPRemoteError.self) { try v2.read(Query(table: "T", top: -1)) }
    }

    @Test func idsWithUnicodeAndSpacesStayInOneSegment() throws {
        let request = try v2.delete(id: "ä b%2F", version: nil, table: "T")
        #expect(request.path == "/tables/T/%C3%A4%20b%252F")
    }

    @Test func urlKeepsTheBasePathPrefix() throws {
        let request = try v2.read(Query(table: "T", top: 1))
        let base = try #require(URL(string: "https://host/api/v1/?x=1#f"))
        #expect(request.url(base: base)?.absoluteString == "https://host/api/v1/tables/T?$top=1")
    }

    @Test func lookupIncludesDeletedRows() throws {
        #expect(try v2.lookup(id: "a", table: "T").query.map(\.text) == ["__includeDeleted=true"])
        #expect(try v3.lookup(id: "a", table: "T").query.map(\.text) == ["__includedeleted=true"])
    }

    @Test func entityTagEscapesQuotes() {
        #expect(HTTPTableRequestBuilder.entityTag("a\"b") == "\"a\\\"b\"")
        #expect(HTTPTableRequestBuilder.entityTag("AAAAAAAACCw=") == "\"AAAAAAAACCw=\"")
    }
}
