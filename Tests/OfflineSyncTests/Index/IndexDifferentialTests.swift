import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Seeded random tables and queries answered with indexes, without them, and by `Query.evaluate`: the answers must
/// hold the same items, in the same order wherever `orderBy` decides it. The queries (``SeededRandom/query()``)
/// repeat fields in their orders, order on fields of mixed kinds, page at the edges of their matches and bound
/// index fields in every position, `updatedAt` also with texts shorter than its timestamps.
struct IndexDifferentialTests {
    static let indexes = [
        IndexDefinition(table: "R", fields: ["a", "b"]), IndexDefinition(table: "R", fields: ["b"]),
        IndexDefinition(table: "R", fields: ["c", "a", "b"]), IndexDefinition(table: "R", fields: ["d", "updatedAt"]),
        IndexDefinition(table: "R", fields: ["updatedAt", "c"]),
    ]

    @Test func indexedReadsMatchScansOnRandomTables() throws {
        var random = SeededRandom(seed: 9)
        var served = 0
        for _ in 0..<6 {
            var plain = TableSet(), indexed = TableSet()
            try indexed.defineIndexes(Self.indexes)
            for _ in 0..<12 {
                let batch = random.batch()
                plain.apply(batch)
                indexed.apply(batch)
                for _ in 0..<20 {
                    let unpaged = random.query()
                    let query = random.paged(unpaged, matches: try Self.matchCount(unpaged, plain))
                    if try indexed.explain(query).index != nil { served += 1 }
                    try Self.expectSameAnswer(query, plain, indexed)
                }
            }
        }
        #expect(served > 800, "the random queries must exercise the indexes, not only scans")
    }

    @Test func indexesDeclaredOnAnExistingTableAnswerAsScans() throws {
        var random = SeededRandom(seed: 13)
        var served = 0
        for _ in 0..<10 {
            var plain = TableSet()
            for _ in 0..<4 { plain.apply(random.batch()) }
            var indexed = plain
            try indexed.defineIndexes(Self.indexes)
            for _ in 0..<40 {
                let query = random.query()
                if try indexed.explain(query).index != nil { served += 1 }
                try Self.expectSameAnswer(random.paged(query, matches: try Self.matchCount(query, plain)), plain, indexed)
            }
        }
        #expect(served > 200, "the random queries must exercise the indexes, not only scans")
    }

    @Test func journalStoreAnswersAsScansAfterReopenAndCompaction() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = JournalOptions(durability: .buffered)
        options.indexes = Self.indexes
        var random = SeededRandom(seed: 11)
        var plain = TableSet()
        var store = try await JournalDataSource(directory: directory.url, options: options)
        for round in 0..<6 {
            for _ in 0..<3 {
                let batch = random.batch()
                try await store.apply(batch)
                plain.apply(batch)
            }
            if round == 2 { try await store.compact() }
            if round % 2 == 1 {
                try await store.close()
                store = try await JournalDataSource(directory: directory.url, options: options)
            }
            for _ in 0..<40 {
                let query = random.query()
                let paged = random.paged(query, matches: try Self.matchCount(query, plain))
                try Self.expectSame(paged, try plain.read(paged), try await store.read(paged))
            }
        }
        try await store.close()
    }

    @Test func inMemoryStoreWithIndexesAnswersAsWithout() async throws {
        var random = SeededRandom(seed: 5)
        var plain = TableSet()
        let indexed = InMemoryDataSource(indexes: Self.indexes)
        for _ in 0..<8 {
            let batch = random.batch()
            plain.apply(batch)
            try await indexed.apply(batch)
            for _ in 0..<40 {
                let query = random.query()
                let paged = random.paged(query, matches: try Self.matchCount(query, plain))
                try Self.expectSame(paged, try plain.read(paged), try await indexed.read(paged))
            }
        }
    }

    /// How many items of `plain` match `query`'s filter.
    static func matchCount(_ query: Query, _ plain: TableSet) throws -> Int {
        try plain.read(Query(table: query.table, filter: query.filter, top: 0, includeTotalCount: true)).totalCount ?? 0
    }

    static func expectSameAnswer(_ query: Query, _ plain: TableSet, _ indexed: TableSet) throws {
        let expected = try plain.read(query)
        try expectSame(query, expected, try indexed.read(query))
        let all = plain.items(table: query.table)
        try expectSame(query, expected, query.evaluate(over: all))
    }

    /// Same count, same set of items, and the same `orderBy` values at each position (the same items when the order
    /// names `id`); every item a match.
    static func expectSame(_ query: Query, _ expected: QueryResult, _ got: QueryResult) throws {
        #expect(expected.totalCount == got.totalCount, "\(query)")
        try #require(expected.items.count == got.items.count, "\(query)")
        #expect(got.items.allSatisfy { query.filter?.matches($0) ?? true }, "\(query)")
        // Which items fill a page is decided only up to ties: compare the ordering values position by position.
        if query.orderBy.contains(where: { $0.field == "id" }) {
            #expect(expected.items.map { $0["id"] } == got.items.map { $0["id"] }, "\(query)")
        }
        for (lhs, rhs) in zip(expected.items, got.items) {
            for key in query.orderBy {
                #expect(ValueComparison.sortOrder(lhs[key.field] ?? .null, rhs[key.field] ?? .null) == 0, "\(query)")
            }
        }
        if query.top == nil && (query.skip ?? 0) == 0 {
            #expect(Set(expected.items.map { $0["id"] }) == Set(got.items.map { $0["id"] }), "\(query)")
        }
    }
}
