import OfflineSyncCore
import OfflineSyncStore

extension DataSourceConformance {
    /// Items of table "Q" used by the query checks.
    static let queryItems: [JSONObject] = [
        ["id": "a", "n": 3, "s": "pear", "flag": true],
        ["id": "b", "n": 1.5, "s": "Apple", "flag": false],
        ["id": "c", "n": 2, "s": "apple"],
        ["id": "d", "n": nil, "s": "banana", "flag": true],
        ["id": "e", "n": "10", "s": "cherry"],
        ["id": "f", "n": 2, "s": "date", "flag": false],
    ]

    static let queryChecks: [Check] = [
        Check("an equality filter returns the matches only") { store, expect in
            try await store.apply([.upsert(table: "Q", items: queryItems)])
            expect.equal(try await store.matchingIds("Q", Field("s") == "apple"), ["c"], "s == apple")
            expect.equal(try await store.matchingIds("Q", Field("n") == 2), ["c", "f"], "n == 2")
        },
        Check("ordering is total and multi-key") { store, expect in
            try await store.apply([.upsert(table: "Q", items: queryItems + [["id": "g", "n": false], ["id": "h", "n": [1]], ["id": "i", "n": ["k": 1]]])])
            let ascending = try await store.ids(Query(table: "Q", orderBy: [.ascending("n"), .ascending("id")]))
            expect.equal(ascending, ["d", "g", "b", "c", "f", "a", "e", "h", "i"], "n ascending (missing/null < bool < number < string < array < object)")
            let descending = try await store.ids(Query(table: "Q", orderBy: [.descending("n"), .descending("id")]))
            expect.equal(descending, ascending.reversed(), "n descending")
            let byFlag = try await store.ids(Query(table: "Q", filter: Field("id") <= "f", orderBy: [.descending("flag"), .ascending("s")]))
            expect.equal(byFlag, ["d", "a", "b", "f", "c", "e"], "flag descending then s ascending")
            let strings = try await store.ids(Query(table: "Q", filter: Field("id") <= "f", orderBy: [.ascending("s")]))
            expect.equal(strings, ["b", "c", "d", "e", "f", "a"], "strings by Unicode scalar order (upper case first)")
        },
        Check("a field named again in orderBy orders nothing") { store, expect in
            // "g" has a key the others lack: a store may hold it in another form than theirs.
            try await store.apply([.upsert(table: "Q", items: queryItems + [["id": "g", "n": 3, "s": "zz", "flag": true, "extra": 1]])])
            let repeated = try await store.ids(Query(table: "Q", filter: Field("flag") >= false,
                                                     orderBy: [.descending("flag"), .ascending("flag"), .ascending("id")]))
            expect.equal(repeated, ["a", "d", "g", "b", "f"], "flag descending, flag ascending, id ascending")
            let twice = try await store.ids(Query(table: "Q", filter: Field("flag") == true,
                                                  orderBy: [.ascending("n"), .descending("n"), .descending("s")], top: 3))
            expect.equal(twice, ["d", "g", "a"], "n ascending, n descending, s descending, top 3")
        },
        Check("skip and top page through the ordered matches") { store, expect in
            try await store.apply([.upsert(table: "Q", items: queryItems)])
            let page = try await store.ids(Query(table: "Q", orderBy: [.ascending("id")], skip: 2, top: 3))
            expect.equal(page, ["c", "d", "e"], "skip 2 top 3")
            expect.equal(try await store.ids(Query(table: "Q", orderBy: [.ascending("id")], skip: 10)), [], "skip past the end")
            expect.equal(try await store.ids(Query(table: "Q", top: 0)), [], "top 0")
            await expect.throwsError("a negative skip") { _ = try await store.read(Query(table: "Q", skip: -1)) }
            await expect.throwsError("a negative top") { _ = try await store.read(Query(table: "Q", top: -1)) }
        },
        Check("the total count counts every match regardless of skip and top") { store, expect in
            try await store.apply([.upsert(table: "Q", items: queryItems)])
            let limited = try await store.read(Query(table: "Q", filter: Field("flag") != nil, top: 1, includeTotalCount: true))
            expect.equal(limited.items.count, 1, "items with top 1")
            expect.equal(limited.totalCount, 4, "total count with top 1")
            let unlimited = try await store.read(Query(table: "Q", includeTotalCount: true))
            expect.equal(unlimited.totalCount, 6, "total count without skip or top")
            let skipped = try await store.read(Query(table: "Q", skip: 5, top: 5, includeTotalCount: true))
            expect.equal(skipped.totalCount, 6, "total count with skip")
            expect.equal(try await store.read(Query(table: "Q")).totalCount, nil, "total count when not asked for")
        },
        Check("select returns the listed fields plus id") { store, expect in
            try await store.apply([.upsert(table: "Q", items: queryItems)])
            let result = try await store.read(Query(table: "Q", filter: Field("id") == "a", select: ["s", "absent"]))
            expect.equal(result.items, [["id": "a", "s": "pear"]], "selected fields")
        },
    ]
}
