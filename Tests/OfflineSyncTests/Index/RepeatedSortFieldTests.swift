import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
import OfflineSync

/// An `orderBy` that names a field twice (an app appending the user's sort to a default one) orders as if the second
/// mention were not there: every store, with or without indexes, answers as `Query.evaluate` does.
struct RepeatedSortFieldTests {
    static let indexes = [IndexDefinition(table: "TodoItem", fields: ["complete", "updatedAt"]),
                          IndexDefinition(table: "TodoItem", fields: ["b"])]

    /// Items whose ties on the repeated field are broken by `id` against the order they were stored in; the first
    /// item fixes the table's packed shape, so the items with a `note` are held in another form (as text).
    static let items: [JSONObject] = [
        ["id": "d", "complete": false, "updatedAt": "2026-12-01T10:00:00.000Z", "b": 1],
        ["id": "c", "complete": false, "updatedAt": "2026-12-01T10:00:00.000Z", "b": 1, "note": "x"],
        ["id": "b", "complete": false, "updatedAt": "2026-12-01T09:00:00.000Z", "b": 2],
        ["id": "a", "complete": false, "updatedAt": "2026-12-01T10:00:00.000Z", "b": 1, "note": "y"],
        ["id": "e", "complete": true, "updatedAt": "2026-12-01T08:00:00.000Z", "b": 2, "note": "z"],
    ]

    static let queries = [
        Query(table: "TodoItem", filter: Field("complete") == false,
              orderBy: [.descending("complete"), .descending("complete"), .ascending("id")]),
        Query(table: "TodoItem", filter: Field("b") >= 1, orderBy: [.ascending("b"), .descending("b"), .ascending("id")]),
        Query(table: "TodoItem", filter: Field("complete") == false,
              orderBy: [.descending("updatedAt"), .ascending("updatedAt"), .ascending("id")], top: 3),
        Query(table: "TodoItem", filter: Field("b") > 0, orderBy: [.ascending("b"), .descending("b"), .descending("id")], skip: 1, top: 2),
    ]

    static func ids(_ result: QueryResult) -> [String] {
        result.items.compactMap { if case .string(let id)? = $0["id"] { id } else { nil } }
    }

    static func expected(_ query: Query) -> [String] { ids(query.evaluate(over: items)) }

    @Test func evaluateIgnoresTheSecondMentionOfAField() {
        let query = Self.queries[1]
        var once = query
        once.orderBy = [.ascending("b"), .ascending("id")]
        #expect(Self.expected(query) == ["a", "c", "d", "b", "e"])
        #expect(Self.expected(query) == Self.ids(once.evaluate(over: Self.items)))
    }

    @Test func anIndexedTableSetOrdersARepeatedFieldAsAScanDoes() throws {
        var plain = TableSet(), indexed = TableSet()
        try indexed.defineIndexes(Self.indexes)
        plain.apply([.upsert(table: "TodoItem", items: Self.items)])
        indexed.apply([.upsert(table: "TodoItem", items: Self.items)])
        for query in Self.queries {
            #expect(try indexed.explain(query).index != nil, "\(query)")
            #expect(Self.ids(try plain.read(query)) == Self.expected(query), "\(query)")
            #expect(Self.ids(try indexed.read(query)) == Self.expected(query), "\(query)")
        }
    }

    @Test func anIndexDeclaredOnAnExistingStoreOrdersARepeatedFieldAsAScanDoes() throws {
        var tables = TableSet()
        tables.apply([.upsert(table: "TodoItem", items: Self.items)])
        try tables.defineIndexes(Self.indexes)
        for query in Self.queries {
            #expect(Self.ids(try tables.read(query)) == Self.expected(query), "\(query)")
        }
    }

    @Test func anInMemoryStoreWithIndexesOrdersARepeatedFieldAsAScanDoes() async throws {
        let store = InMemoryDataSource(indexes: Self.indexes)
        try await store.apply([.upsert(table: "TodoItem", items: Self.items)])
        for query in Self.queries {
            #expect(Self.ids(try await store.read(query)) == Self.expected(query), "\(query)")
        }
    }

    @Test func theJournalStoreOrdersARepeatedFieldAsAScanDoesBeforeAndAfterReopening() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = JournalOptions(durability: .buffered)
        options.indexes = Self.indexes
        var store = try await JournalDataSource(directory: directory.url, options: options)
        try await store.apply([.upsert(table: "TodoItem", items: Self.items)])
        for reopened in [false, true] {
            for query in Self.queries {
                #expect(Self.ids(try await store.read(query)) == Self.expected(query), "reopened: \(reopened), \(query)")
            }
            try await store.close()
            store = try await JournalDataSource(directory: directory.url, options: options)
        }
        try await store.close()
    }

    @Test func anIndexServesTheOrderLeftOnceRepeatsAreDropped() throws {
        var tables = TableSet()
        try tables.defineIndexes(Self.indexes)
        tables.apply([.upsert(table: "TodoItem", items: Self.items)])
        let query = Query(table: "TodoItem", filter: Field("complete") == false,
                          orderBy: [.ascending("updatedAt"), .descending("updatedAt")], top: 2)
        let plan = try tables.explain(query)
        #expect(plan.index == Self.indexes[0])
        #expect(plan.reason.contains("orderBy follows the index, in order"), "\(plan)")
        #expect(try tables.read(query).items.map { $0["updatedAt"] } == ["2026-12-01T09:00:00.000Z", "2026-12-01T10:00:00.000Z"])
    }
}
