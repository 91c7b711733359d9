import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// The request sequences of the reference pull loop, as `HTTPRemote` puts them
/// on the wire, one `read` per page, through the `URLProtocol` stub.
struct PullSequenceTests {
    private func wireQueries(_ queries: [Query], version: APIVersion = .v2) async throws -> [[String]] {
        let stub = StubServer(replies: queries.map { _ in .response(status: 200, headers: [:], body: Array("[]".utf8)) })
        let remote = HTTPRemote(baseURL: stub.baseURL, apiVersion: version, session: StubServer.session)
        for query in queries { _ = try await remote.read(query) }
        return stub.requests.map { $0.encodedQueryPairs.sorted() }
    }

    private func incremental(_ token: String, skip: Int, filter: Filter? = nil) -> Query {
        let delta = Field("updatedAt") >= .string(token)
        return Query(table: "TodoItem", filter: filter.map { $0 && delta } ?? delta, orderBy: [.ascending("updatedAt")],
                     skip: skip, top: 50, includeDeleted: true)
    }

    /// `testIncrementalPullRevertsToSkipAndBack`: (token, skip) = (epoch, 0), (01-01, 0), (01-01, 2), (01-01, 4),
    /// (01-02, 0), (01-02, 1).
    @Test func equalTimestampsRevertToSkipPagingAndBack() async throws {
        let steps: [(String, Int)] = [
            ("1970-01-01T00:00:00.000Z", 0), ("2001-01-01T00:00:00.000Z", 0), ("2001-01-01T00:00:00.000Z", 2),
            ("2001-01-01T00:00:00.000Z", 4), ("2001-01-02T00:00:00.000Z", 0), ("2001-01-02T00:00:00.000Z", 1),
        ]
        let sent = try await wireQueries(steps.map { incremental($0.0, skip: $0.1) })
        let expected = steps.map { token, skip in
            ["$filter=(updatedAt%20ge%20datetimeoffset'\(token.replacing(":", with: "%3A"))')",
             "$orderby=updatedAt%20asc", "$skip=\(skip)", "$top=50", "__includeDeleted=true"].sorted()
        }
        #expect(sent == expected)
    }

    /// A user predicate is combined with the delta filter on every page.
    @Test func userPredicateIsKeptOnEveryPage() async throws {
        let match = Field("text") == "MATCH"
        let sent = try await wireQueries([
            incremental("1970-01-01T00:00:00.000Z", skip: 0, filter: match),
            incremental("1999-12-03T15:44:29.000Z", skip: 0, filter: match),
            incremental("1999-12-03T15:44:29.000Z", skip: 1, filter: match),
        ])
        for (index, pairs) in sent.enumerated() {
            #expect(pairs.contains { $0.hasPrefix("$filter=((text%20eq%20'MATCH')%20and%20(updatedAt%20ge%20datetimeoffset'") })
            #expect(pairs.contains(index == 2 ? "$skip=1" : "$skip=0"))
        }
    }

    /// fetchLimit 100 against a server returning at most 25: (top, skip) = (50,0), (50,25), (50,50), (40,60).
    @Test func limitedPullPagesWithSkipAndTop() async throws {
        let steps = [(50, 0), (50, 25), (50, 50), (40, 60)]
        let sent = try await wireQueries(steps.map { top, skip in
            Query(table: "TodoItem", skip: skip, top: top, includeDeleted: true)
        })
        #expect(sent == steps.map { top, skip in ["$skip=\(skip)", "$top=\(top)", "__includeDeleted=true"].sorted() })
    }

    /// A page after a pull's key, as Protocol.md shows it: `(updatedAt gt T) or ((updatedAt eq T) and (id gt 'last'))`
    /// after the user filter, ordered by `updatedAt` then `id`, in either dialect's date literal.
    @Test func aPageAfterAKeyOnTheWire() async throws {
        let key = PullKey(updatedAt: Timestamp.milliseconds(from: "2024-05-01T11:40:00.500Z") ?? 0, id: "O'c2")
        let query = Query(table: "TodoItem", filter: Field("text") == "MATCH" && key.filter, orderBy: PullKey.order, skip: 0,
                          top: 50, includeDeleted: true)
        let v2 = try await wireQueries([query]), v3 = try await wireQueries([query], version: .v3)
        #expect(v2 == [[
            "$filter=((text%20eq%20'MATCH')%20and%20((updatedAt%20gt%20datetimeoffset'2024-05-01T11%3A40%3A00.500Z')%20or%20"
                + "((updatedAt%20eq%20datetimeoffset'2024-05-01T11%3A40%3A00.500Z')%20and%20(id%20gt%20'O''c2'))))",
            "$orderby=updatedAt%20asc,id%20asc", "$skip=0", "$top=50", "__includeDeleted=true",
        ].sorted()])
        #expect(v3.first?.contains(
            "$filter=((text%20eq%20'MATCH')%20and%20((updatedAt%20gt%20cast(2024-05-01T11%3A40%3A00.500Z,Edm.DateTimeOffset))%20or%20"
                + "((updatedAt%20eq%20cast(2024-05-01T11%3A40%3A00.500Z,Edm.DateTimeOffset))%20and%20(id%20gt%20'O''c2'))))") == true)
    }

    /// The v3 form of the delta filter, as the Toolkit client writes it.
    @Test func v3DeltaPagesUseCastAndLowerCaseIncludeDeleted() async throws {
        let query = Query(table: "TodoItem", filter: Field("updatedAt") > "2024-05-01T11:40:00.500Z",
                          orderBy: [.ascending("updatedAt")], skip: 0, top: 50, includeDeleted: true)
        let sent = try await wireQueries([query], version: .v3)
        #expect(sent == [[
            "$filter=(updatedAt%20gt%20cast(2024-05-01T11%3A40%3A00.500Z,Edm.DateTimeOffset))",
            "$orderby=updatedAt%20asc", "$skip=0", "$top=50", "__includedeleted=true",
        ].sorted()])
    }
}
