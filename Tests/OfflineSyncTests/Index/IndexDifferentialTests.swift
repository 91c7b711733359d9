import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Seeded random tables and queries answered with indexes, without them, and by `Query.evaluate`: the answers must
/// hold the same items, in the same order wherever `orderBy` decides it.
struct IndexDifferentialTests {
    static let indexes = [
        IndexDefinition(table: "R", fields: ["a", "b"]), IndexDefinition(table: "R", fields: ["b"]),
        IndexDefinition(table: "R", fields: ["c", "a", "b"]),
    ]

    @Test func indexedReadsMatchScansOnRandomTables() throws {
        var random = SeededRandom(seed: 9)
        var served = 0
        for _ in 0..<12 {
            var plain = TableSet(), indexed = TableSet()
            try indexed.defineIndexes(Self.indexes)
            for _ in 0..<12 {
                let batch = random.batch()
                plain.apply(batch)
                indexed.apply(batch)
                for _ in 0..<25 {
                    let query = random.query()
                    if try indexed.explain(query).index != nil { served += 1 }
                    try Self.expectSameAnswer(query, plain, indexed)
                }
            }
        }
        #expect(served > 300, "the random queries must exercise the indexes, not only scans")
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
                let expected = try plain.read(query)
                let got = try await store.read(query)
                try Self.expectSame(query, expected, got)
            }
        }
        try await store.close()
    }

    @Test func inMemoryStoreWithIndexesAnswersAsWithout() async throws {
        var random = SeededRandom(seed: 5)
        let plain = InMemoryDataSource(), indexed = InMemoryDataSource(indexes: Self.indexes)
        for _ in 0..<8 {
            let batch = random.batch()
            try await plain.apply(batch)
            try await indexed.apply(batch)
            for _ in 0..<40 {
                let query = random.query()
                try Self.expectSame(query, try await plain.read(query), try await indexed.read(query))
            }
        }
    }

    static func expectSameAnswer(_ query: Query, _ plain: TableSet, _ indexed: TableSet) throws {
        let expected = try plain.read(query)
        try expectSame(query, expected, try indexed.read(query))
        let all = plain.items(table: query.table)
        try expectSame(query, expected, query.evaluate(over: all))
    }

    /// Same count, same set of items, and the same `orderBy` values at each position.
    static func expectSame(_ query: Query, _ expected: QueryResult, _ got: QueryResult) throws {
        #expect(expected.totalCount == got.totalCount, "\(query)")
        try #require(expected.items.count == got.items.count, "\(query)")
        // Which items fill a page is decided only up to ties: compare the ordering values position by position.
        if query.orderBy.isEmpty {
            if query.top == nil && query.skip == nil {
                #expect(Set(expected.items.map { $0["id"] }) == Set(got.items.map { $0["id"] }), "\(query)")
            }
            return
        }
        for (lhs, rhs) in zip(expected.items, got.items) {
            for key in query.orderBy {
                #expect(ValueComparison.sortOrder(lhs[key.field] ?? .null, rhs[key.field] ?? .null) == 0, "\(query)")
            }
        }
        if query.top == nil && query.skip == nil {
            #expect(Set(expected.items.map { $0["id"] }) == Set(got.items.map { $0["id"] }), "\(query)")
        }
    }
}

/// A small deterministic generator (SplitMix64) of items, batches and queries with mixed kinds and nulls.
struct SeededRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// A value of a random kind from a small domain, so ties and equal values are common; nil is "missing".
    mutating func value() -> JSONValue? {
        switch below(9) {
        case 0: return nil
        case 1: return .null
        case 2: return .bool(below(2) == 0)
        case 3, 4: return .int(Int64(below(5)))
        case 5: return .double(Double(below(5)) + (below(2) == 0 ? 0 : 0.5))
        case 6, 7: return .string(["x", "y", "z", "X", ""][below(5)])
        default: return .array([.int(Int64(below(2)))])
        }
    }

    mutating func item() -> JSONObject {
        var item: JSONObject = ["id": .string("i\(below(300))")]
        for field in ["a", "b", "c", "d"] { if let value = value() { item[field] = value } }
        return item
    }

    mutating func batch() -> [StoreChange] {
        switch below(11) {
        case 0: return [.delete(table: "R", ids: (0..<(1 + below(60))).map { _ in "I\(below(300))" })]
        case 10:  // one batch that writes, deletes and writes again the same ids (slots freed and reused), at
                  // times in upserts large enough to have their index entries built aside (AddedIndexEntries)
            let sizes = (0..<2).map { _ in below(3) == 0 ? AddedIndexEntries.minimumItems + below(60) : 1 + below(20) }
            return [.upsert(table: "R", items: (0..<sizes[0]).map { _ in item() }),
                    .delete(table: "R", ids: (0..<(1 + below(20))).map { _ in "i\(below(300))" }),
                    .upsert(table: "R", items: (0..<sizes[1]).map { _ in item() })]
        case 1: return [.deleteAll(table: "R", matching: Field("d") == (value() ?? .null))]
        case 2: return [.upsert(table: "R", items: (0..<(100 + below(300))).map { _ in item() })]
        default: return [.upsert(table: "R", items: (0..<(1 + below(50))).map { _ in item() })]
        }
    }

    mutating func condition() -> Filter {
        let field = Field(["a", "b", "c", "d"][below(4)])
        let operand = value() ?? .null
        switch below(8) {
        case 0, 1, 2: return field == operand
        case 3: return field < operand
        case 4: return field >= operand
        case 5: return field > operand
        case 6: return field <= operand
        default: return field != operand
        }
    }

    mutating func query() -> Query {
        var filter: Filter?
        for _ in 0..<below(4) { filter = filter.map { $0 && condition() } ?? condition() }
        if below(8) == 0, let current = filter { filter = current || condition() }
        let fields = ["a", "b", "c", "d"]
        var orderBy: [SortKey] = []
        let ascending = below(2) == 0
        for _ in 0..<below(3) {
            let field = fields[below(4)]
            if !orderBy.contains(where: { $0.field == field }) {
                orderBy.append(ascending || below(5) == 0 ? .ascending(field) : .descending(field))
            }
        }
        return Query(table: "R", filter: filter, orderBy: orderBy,
                     skip: below(3) == 0 ? below(5) : nil, top: below(2) == 0 ? below(8) : nil,
                     includeTotalCount: below(2) == 0)
    }
}
