import Testing
import OfflineSync

struct QueryEvaluationTests {
    /// Items with repeated and mixed-kind sort values, so ties and the kind order matter.
    static func items(count: Int, seed: UInt64) -> [JSONObject] {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let kinds: [JSONValue] = [nil, true, false, 1, 2.5, "a", "B", [1], ["k": 1]]
        return (0..<count).map { index in
            var item: JSONObject = ["id": .string("id\(index)"), "n": .int(Int64(next() % 7)), "k": kinds[Int(next() % 9)]]
            if next() % 5 == 0 { item["n"] = nil }
            return item
        }
    }

    @Test(arguments: [0, 1, 3, 10])
    func topWithOrderingMatchesAFullSort(_ skip: Int) {
        let items = Self.items(count: 300, seed: UInt64(skip) + 1)
        let keys: [SortKey] = [.descending("n"), .ascending("k"), .ascending("id")]
        for top in [0, 1, 7, 50, 400] {
            let full = Query(table: "T", orderBy: keys).evaluate(over: items).items
            let expected = Array(full.dropFirst(skip).prefix(top))
            let page = Query(table: "T", orderBy: keys, skip: skip, top: top, includeTotalCount: true).evaluate(over: items)
            #expect(page.items == expected, "skip \(skip) top \(top)")
            #expect(page.totalCount == 300)
        }
    }

    @Test func filterAppliesBeforePagingAndCounting() {
        let items = Self.items(count: 200, seed: 9)
        let filter = Field("n") >= 3
        let matching = items.filter { filter.matches($0) }
        let result = Query(table: "T", filter: filter, orderBy: [.ascending("id")], skip: 5, top: 10,
                           includeTotalCount: true).evaluate(over: items)
        #expect(result.totalCount == matching.count)
        #expect(result.items.count == 10)
        #expect(result.items.allSatisfy { filter.matches($0) })
    }

    @Test func aFullSortKeepsTiesInTheirOrder() {
        let items = Self.items(count: 500, seed: 4)
        let sorted = Query(table: "T", orderBy: [.descending("n")]).evaluate(over: items).items
        let position = Dictionary(uniqueKeysWithValues: items.enumerated().map { ($1["id"]!, $0) })
        for (a, b) in zip(sorted, sorted.dropFirst()) where a["n"] == b["n"] {
            #expect(position[a["id"]!]! < position[b["id"]!]!, "\(a) and \(b) tie but swapped")
        }
        #expect(sorted.count == 500)
    }

    @Test func stringsSortByUnicodeScalarsNotByCanonicalEquivalence() {
        // "e" + combining acute and the precomposed "é" are equal as Swift Strings but differ by scalars;
        // "z" (U+007A) sorts before "é" (U+00E9), and U+FFFF before U+1F600 (a four-byte UTF-8 sequence).
        let texts = ["\u{1F600}", "é", "e\u{301}", "z", "\u{FFFF}", "", "a"]
        let items: [JSONObject] = texts.enumerated().map { ["id": .string("i\($0)"), "s": .string($1)] }
        let sorted = Query(table: "T", orderBy: [.ascending("s")]).evaluate(over: items).items.map { $0["s"]!.stringValue! }
        #expect(sorted.map { Array($0.unicodeScalars) } == ["", "a", "e\u{301}", "z", "é", "\u{FFFF}", "\u{1F600}"].map { Array($0.unicodeScalars) })
    }

    @Test func aFullSortOfStringsAndNullsAgreesWithTheComparisonRules() {
        let texts: [JSONValue] = [nil, "", "a", "A", "ab", "é", "e\u{301}", "\u{1F600}", "2026-11-26T01:00:00.000Z", "z"]
        var state: UInt64 = 5
        let items: [JSONObject] = (0..<400).map { index in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var item: JSONObject = ["id": .string("id\(index % 37)-\(index)")]
            let text = texts[Int(state >> 33) % texts.count]
            if text != nil || index.isMultiple(of: 2) { item["s"] = text }  // null, missing or a string
            return item
        }
        for keys in [[SortKey.ascending("s")], [.descending("s"), .ascending("id")]] {
            let full = Query(table: "T", orderBy: keys).evaluate(over: items).items
            // The bounded top-k path compares with the rules directly, pair by pair.
            let bounded = Query(table: "T", orderBy: keys, top: items.count).evaluate(over: items).items
            #expect(full == bounded, "\(keys)")
        }
    }
}
