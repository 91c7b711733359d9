import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// The query shapes apps write beside the W5 one, each answered from the indexes `(complete, updatedAt)` and
/// `(priority)` (the benchmark's) and checked against the same table without indexes: same items, same order, same
/// count. `explain` must name the path, so that a shape falling back to a scan fails here.
struct QueryShapeTests {
    static let indexes = [
        IndexDefinition(table: "TodoItem", fields: ["complete", "updatedAt"]), IndexDefinition(table: "TodoItem", fields: ["priority"]),
    ]

    /// 600 items: `complete` true, false or missing; `updatedAt` a distinct instant each, written in the forms that
    /// sort differently as text (`Z`, a fraction, an offset, a lowercase `t`), a few not timestamps at all;
    /// `priority` 0…9, with a few nulls and strings.
    static func tables() throws -> (plain: TableSet, indexed: TableSet) {
        var plain = TableSet(), indexed = TableSet()
        try indexed.defineIndexes(indexes)
        let start = Timestamp.milliseconds(from: "2026-03-01T00:00:00Z") ?? 0
        let items = (0..<600).map { number -> JSONObject in
            let instant = start + Int64((number * 7_919) % 600) * 3_600_000 + Int64(number)
            var text = Timestamp.string(fromMilliseconds: instant)
            switch number % 7 {
            case 1: text = text.replacingOccurrences(of: "T", with: "t")
            case 2: text = Timestamp.string(fromMilliseconds: instant + 5 * 3_600_000).replacingOccurrences(of: "Z", with: "+05:00")
            case 3: text = Timestamp.string(fromMilliseconds: instant - 11 * 3_600_000).replacingOccurrences(of: "Z", with: "-11:00")
            default: break
            }
            var item: JSONObject = ["id": .string("i\(number)"), "text": .string("item \(number)")]
            if number % 50 == 0 { item["updatedAt"] = .string("not a date \(number)") } else { item["updatedAt"] = .string(text) }
            if number % 13 != 0 { item["complete"] = .bool(number % 3 == 0) }
            item["priority"] = number % 31 == 0 ? .null : number % 37 == 0 ? "high" : .int(Int64(number % 10))
            return item
        }
        for batch in stride(from: 0, to: items.count, by: 100) {
            let change = StoreChange.upsert(table: "TodoItem", items: Array(items[batch..<(batch + 100)]))
            plain.apply([change])
            indexed.apply([change])
        }
        return (plain, indexed)
    }

    static let day = Date(timeIntervalSince1970: 1_772_409_600) // 2026-03-02T00:00:00Z

    @Test(arguments: [
        // A range on the second field after an equality on the first: instants within a day, as dates and as text.
        (Query(table: "TodoItem", filter: Field("complete") == false && Field("updatedAt") >= day && Field("updatedAt") < day.addingTimeInterval(86_400)),
         "range on updatedAt (instants"),
        (Query(table: "TodoItem", filter: Field("complete") == true && Field("updatedAt") > "2026-03-05T12:00:00+02:00",
               orderBy: [.descending("updatedAt")], top: 15, includeTotalCount: true), "range on updatedAt (instants"),
        // A range on a timestamp field alone (the second field of an index: a skip-scan).
        (Query(table: "TodoItem", filter: Field("updatedAt") > day.addingTimeInterval(20 * 86_400)), "skip-scan"),
        // A filter served by one index, ordered by another field: top 20 newest.
        (Query(table: "TodoItem", filter: Field("priority") == 7, orderBy: [.descending("updatedAt")], top: 20),
         "skip-scan: each of the 3 values of complete walked as a group; intersected with index (priority) on priority"),
        (Query(table: "TodoItem", filter: Field("priority") == 7, orderBy: [.descending("updatedAt")], includeTotalCount: true),
         "orderBy follows the index, in order, the groups merged"),
        (Query(table: "TodoItem", filter: Field("priority") >= 8, orderBy: [.ascending("text")], skip: 3, top: 5, includeTotalCount: true),
         "sorts the matches by their sort values"),
        // An order on the second field with no condition on the first: a skip-scan merging the groups.
        (Query(table: "TodoItem", orderBy: [.descending("updatedAt")], top: 25), "skip-scan"),
        (Query(table: "TodoItem", filter: Field("text") != "item 5", orderBy: [.ascending("updatedAt")], skip: 40, top: 10), "the groups merged"),
        // A deep page walked through the index without reading the items skipped.
        (Query(table: "TodoItem", filter: Field("complete") == false, orderBy: [.ascending("updatedAt")], skip: 300, top: 10), "without reading items"),
        (Query(table: "TodoItem", orderBy: [.ascending("priority")], skip: 450, top: 30, includeTotalCount: true), "without reading items"),
        // Counts of what an index serves, without materializing.
        (Query(table: "TodoItem", filter: Field("priority") == 3, top: 0, includeTotalCount: true), "without reading items"),
        (Query(table: "TodoItem", filter: Field("complete") == true && Field("priority") < 4, top: 0, includeTotalCount: true), "without reading items"),
        // Two equalities on different indexes: intersected.
        (Query(table: "TodoItem", filter: Field("priority") == 7 && Field("complete") == false), "intersected with index"),
        (Query(table: "TodoItem", filter: Field("complete") == true && Field("priority") == 2, orderBy: [.descending("updatedAt")], top: 5,
               includeTotalCount: true), "intersected with index"),
    ] as [(Query, String)])
    func shapeIsServedFromTheIndexesWithTheSameAnswer(_ query: Query, _ path: String) throws {
        let (plain, indexed) = try Self.tables()
        let plan = try indexed.explain(query)
        #expect(plan.index != nil, "\(plan)")
        #expect(plan.reason.contains(path), "\(plan)")
        let expected = try plain.read(query), got = try indexed.read(query)
        #expect(!expected.items.isEmpty || query.top == 0, "the shape must select items to be a test")
        #expect(got.totalCount == expected.totalCount)
        // Every updatedAt is distinct, so an order on it decides the page; otherwise compare the order's values.
        if query.orderBy.isEmpty || query.orderBy.contains(where: { $0.field == "updatedAt" || $0.field == "text" }) {
            let sameOrder = query.orderBy.isEmpty ? Set(got.items.map { $0["id"] }) == Set(expected.items.map { $0["id"] })
                : got.items.map { $0["id"] } == expected.items.map { $0["id"] }
            #expect(sameOrder, "\(got.items.map { $0["id"] }) vs \(expected.items.map { $0["id"] })")
            if query.orderBy.isEmpty { #expect(got.items.count == expected.items.count) }
        } else {
            try IndexDifferentialTests.expectSame(query, expected, got)
        }
    }

    @Test func fewMatchesAreRankedRatherThanLookedForAlongALongOrderedWalk() throws {
        var plain = TableSet(), indexed = TableSet()
        try indexed.defineIndexes(Self.indexes)
        let items = (0..<3_000).map { number -> JSONObject in
            let priority: Int64 = number % 1_000 == 7 ? 99 : Int64(number % 10)
            let updatedAt = Timestamp.string(fromMilliseconds: Int64(number) * 60_000)
            return ["id": .string("i\(number)"), "complete": .bool(number % 2 == 0), "priority": .int(priority), "updatedAt": .string(updatedAt)]
        }
        plain.apply([.upsert(table: "TodoItem", items: items)])
        indexed.apply([.upsert(table: "TodoItem", items: items)])
        let rare = Query(table: "TodoItem", filter: Field("priority") == 99, orderBy: [.descending("updatedAt")], top: 2)
        #expect(try indexed.explain(rare).reason.contains("equality on priority; orderBy sorts the matches by their sort values"))
        #expect(try indexed.read(rare).items.map { $0["id"] } == ["i2007", "i1007"])
        #expect(try plain.read(rare).items.map { $0["id"] } == ["i2007", "i1007"])
        let common = Query(table: "TodoItem", filter: Field("priority") == 3, orderBy: [.descending("updatedAt")], top: 2)
        #expect(try indexed.explain(common).reason.contains("orderBy follows the index"))
        #expect(try indexed.read(common).items.map { $0["id"] } == ["i2993", "i2983"])
    }

    @Test func hugeSkipsAndTopsAreAnsweredNotOverflowed() throws {
        let (plain, indexed) = try Self.tables()
        for query in [Query(table: "TodoItem", filter: Field("priority") == 7, orderBy: [.descending("updatedAt")], skip: 3, top: .max),
                      Query(table: "TodoItem", filter: Field("complete") == true, skip: .max, top: .max, includeTotalCount: true)] {
            let expected = try plain.read(query), got = try indexed.read(query)
            #expect(got.items.map { $0["id"] } == expected.items.map { $0["id"] })
            #expect(got.totalCount == expected.totalCount)
        }
    }

    @Test func instantsNarrowOnlyAsFarAsOffsetsAllow() throws {
        // The same instant written with several offsets: its text's day is at most a day off.
        var indexed = TableSet()
        try indexed.defineIndexes([IndexDefinition(table: "T", fields: ["updatedAt"])])
        indexed.apply([.upsert(table: "T", items: [
            ["id": "west", "updatedAt": "2026-03-01T13:00:00-11:00"], ["id": "east", "updatedAt": "2026-03-02T14:00:00+14:00"],
            ["id": "farwest", "updatedAt": "2026-03-01T01:00:00-23:00"],
            ["id": "utc", "updatedAt": "2026-03-02T00:00:00.000Z"], ["id": "later", "updatedAt": "2026-03-02T00:00:00.001Z"],
        ])])
        let instant = Field("updatedAt") == "2026-03-02T00:00:00Z"
        #expect(try indexed.read(Query(table: "T", filter: instant, orderBy: [.ascending("id")])).items.map { $0["id"] } == ["east", "farwest", "utc", "west"])
        #expect(try indexed.explain(Query(table: "T", filter: instant)).reason.contains("range on updatedAt"))
        let after = Field("updatedAt") > Date(timeIntervalSince1970: 1_772_409_600)
        #expect(try indexed.read(Query(table: "T", filter: after)).items.map { $0["id"] } == ["later"])
    }

    @Test func scalarsReadBackFromTheirEncodingsCompareEqual() {
        let values: [JSONValue] = [.null, true, false, 0, -7, 9_007_199_254_740_993, .int(.max), .int(.min), -2.5, 1e300, "", "a\u{0}b", "é"]
        for value in values {
            var bytes: [UInt8] = []
            OrderedKey.append(value, to: &bytes)
            OrderedKey.append([1], to: &bytes)
            var position = 0
            let read = bytes.withUnsafeBytes { OrderedKey.scalar(at: &position, in: $0) }
            #expect(read.map { ValueComparison.equal($0, value) && ValueComparison.sortOrder($0, value) == 0 } == true, "\(value) read as \(String(describing: read))")
            #expect(bytes.withUnsafeBytes { OrderedKey.scalar(at: &position, in: $0) } == nil, "an array is not a scalar")
        }
    }

    @Test func valueLengthsSkipEveryKindOfEncodedValue() {
        let values: [JSONValue] = [.null, true, 3, -2.5, "a\u{0}b", "", [1, "x", [.null]], ["k": ["z": 1], "a\u{0}": "v"]]
        for value in values {
            var bytes: [UInt8] = []
            OrderedKey.append(value, to: &bytes)
            let length = bytes.count
            OrderedKey.append("tail", to: &bytes)
            #expect(bytes.withUnsafeBytes { OrderedKey.length(ofValueAt: 0, in: $0) } == length, "\(value)")
        }
    }
}
