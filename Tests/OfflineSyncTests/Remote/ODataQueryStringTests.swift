import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Query strings as the reference clients write them.
struct ODataQueryStringTests {
    private func text(_ query: Query, _ version: APIVersion = .v2) -> String {
        ODataQueryString.string(for: query, version: version)
    }

    @Test func queryWithoutOptionsHasNoPairs() {
        #expect(text(Query(table: "T")) == "")
    }

    @Test func simplePredicateIsParenthesisedAndEncoded() {
        #expect(text(Query(table: "T", filter: Field("name") == "bob")) == "$filter=(name%20eq%20'bob')")
    }

    @Test(arguments: [(22, "$top=22"), (0, "$top=0")])
    func topIsSent(top: Int, expected: String) {
        #expect(text(Query(table: "T", top: top)) == expected)
    }

    @Test func topZeroWithCountFlag() {
        #expect(text(Query(table: "T", top: 0, includeTotalCount: true)) == "$top=0&$inlinecount=allpages")
        #expect(text(Query(table: "T", top: 0, includeTotalCount: true), .v3) == "$top=0&$count=true")
    }

    @Test(arguments: [542, 0])
    func skipIsSentEvenWhenZero(skip: Int) {
        #expect(text(Query(table: "T", skip: skip)) == "$skip=\(skip)")
    }

    @Test func selectedFieldsAreCommaSeparated() {
        #expect(text(Query(table: "T", select: ["address", "birthdate"])) == "$select=address,birthdate")
    }

    @Test func orderingsKeepCallOrder() {
        let query = Query(table: "T", orderBy: [.ascending("name"), .descending("zipcode"), .ascending("birthdate")])
        #expect(text(query) == "$orderby=name%20asc,zipcode%20desc,birthdate%20asc")
    }

    @Test func includeDeletedNameDiffersPerDialect() {
        #expect(text(Query(table: "T", includeDeleted: true)) == "__includeDeleted=true")
        #expect(text(Query(table: "T", includeDeleted: true), .v3) == "__includedeleted=true")
        #expect(text(Query(table: "T")) == "", "never sent unless it means true (Node treats any value as true)")
    }

    @Test func parametersFollowTheDotNetClientOrder() {
        let query = Query(table: "T", filter: Field("a") == 1, orderBy: [.ascending("a")], skip: 1, top: 2,
                          select: ["a"], includeTotalCount: true, includeDeleted: true)
        let names = ODataQueryString.pairs(for: query, version: .v2).map(\.name)
        #expect(names == ["$filter", "$orderby", "$skip", "$top", "$select", "$inlinecount", "__includeDeleted"])
    }

    /// The first incremental request of a pull with no token.
    @Test func firstIncrementalPullRequest() {
        let query = Query(table: "TodoItem", filter: Field("updatedAt") >= "1970-01-01T00:00:00.000Z",
                          orderBy: [.ascending("updatedAt")], skip: 0, top: 50, includeDeleted: true)
        let pairs = Set(ODataQueryString.pairs(for: query, version: .v2).map(\.text))
        #expect(pairs == [
            "$filter=(updatedAt%20ge%20datetimeoffset'1970-01-01T00%3A00%3A00.000Z')", "$orderby=updatedAt%20asc",
            "$skip=0", "$top=50", "__includeDeleted=true",
        ])
    }

    /// A run of equal timestamps across pages: (token, skip) pairs and the query strings they make.
    @Test(arguments: [
        ("1970-01-01T00:00:00.000Z", 0), ("1999-01-01T00:00:00.000Z", 0), ("1999-01-01T00:00:00.000Z", 2),
        ("1999-01-01T00:00:00.000Z", 4), ("1999-01-02T00:00:00.000Z", 0), ("1999-01-02T00:00:00.000Z", 1),
    ])
    func incrementalPullPages(token: String, skip: Int) {
        let query = Query(table: "TodoItem", filter: Field("updatedAt") >= .string(token),
                          orderBy: [.ascending("updatedAt")], skip: skip, top: 50, includeDeleted: true)
        let encodedToken = token.replacing(":", with: "%3A")
        #expect(text(query) == "$filter=(updatedAt%20ge%20datetimeoffset'\(encodedToken)')&$orderby=updatedAt%20asc"
            + "&$skip=\(skip)&$top=50&__includeDeleted=true")
        #expect(HTTPTableRequestBuilder.isIncrementalPull(query))
    }

    /// Non-incremental pulls page with skip and top.
    @Test(arguments: [(50, 0), (50, 50), (48, 100), (10, 112), (50, 25), (40, 60), (25, 0), (10, 10), (10, 20),
                      (50, 12), (50, 62), (51, 0)])
    func plainPullPages(top: Int, skip: Int) {
        let query = Query(table: "TodoItem", skip: skip, top: top, includeDeleted: true)
        #expect(text(query) == "$skip=\(skip)&$top=\(top)&__includeDeleted=true")
        #expect(!HTTPTableRequestBuilder.isIncrementalPull(query))
    }

    @Test func v3DeltaFilterUsesCastAndContains() {
        let query = Query(table: "T", filter: Field("text").contains("a b") && Field("updatedAt") > "2024-05-01T11:40:00.500Z")
        #expect(text(query, .v3)
            == "$filter=(contains(text,'a%20b')%20and%20(updatedAt%20gt%20cast(2024-05-01T11%3A40%3A00.500Z,Edm.DateTimeOffset)))")
    }

    @Test(arguments: [
        ("O'Neil", "'O''Neil'"), ("a+b", "'a%2Bb'"), ("a&b=c", "'a%26b%3Dc'"), ("50%", "'50%25'"),
        ("x#y?z/", "'x%23y%3Fz%2F'"), ("é", "'%C3%A9'"), ("[!*;@]", "'%5B%21%2A%3B%40%5D'"),
    ])
    func stringLiteralsAreQuotedThenEncoded(value: String, literal: String) {
        #expect(text(Query(table: "T", filter: Field("s") == .string(value))) == "$filter=(s%20eq%20\(literal))")
    }

    @Test func encodingKeepsTheIOSClientsLiteralSet() {
        #expect(PercentEncoding.queryComponent("azAZ09-._~$'(),") == "azAZ09-._~$'(),")
        #expect(PercentEncoding.queryComponent(" :+") == "%20%3A%2B")
    }

    @Test func pathSegmentsEncodeEverythingButUnreserved() {
        #expect(PercentEncoding.pathSegment("a b/../c?d#e%f") == "a%20b%2F..%2Fc%3Fd%23e%25f")
        #expect(PercentEncoding.pathSegment("Todo_Item-1.x~") == "Todo_Item-1.x~")
    }
}
