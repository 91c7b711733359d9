import OfflineSyncCore
import OfflineSyncStore

extension DataSourceConformance {
    /// Items of table "F" used by the filter checks: every kind of value in field `v`.
    static let filterItems: [JSONObject] = [
        ["id": "int2", "v": 2],
        ["id": "dbl2", "v": 2.0],
        ["id": "dbl2.5", "v": 2.5],
        ["id": "int3", "v": 3],
        ["id": "strA", "v": "Abc"],
        ["id": "strB", "v": "abc"],
        ["id": "strU", "v": "émile"],
        ["id": "true", "v": true],
        ["id": "false", "v": false],
        ["id": "null", "v": nil],
        ["id": "missing"],
        ["id": "array", "v": [2]],
        ["id": "object", "v": ["x": 2]],
        ["id": "date1", "v": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z"],
        ["id": "date2", "v": "2026-06-01T12:00:00.500Z", "updatedAt": "2026-06-01T14:00:00.500+02:00"],
    ]

    private static func check(_ name: String, _ cases: [(Filter, [String])]) -> Check {
        Check(name) { store, expect in
            try await store.apply([.upsert(table: "F", items: filterItems)])
            for (filter, expected) in cases {
                expect.equal(try await store.matchingIds("F", filter), expected.sorted(), filter.odata)
            }
        }
    }

    static let filterChecks: [Check] = [
        check("numbers compare numerically, ints with doubles", [
            (Field("v") == 2, ["int2", "dbl2"]),
            (Field("v") == 2.0, ["int2", "dbl2"]),
            (Field("v") != 2, ["dbl2.5", "int3", "strA", "strB", "strU", "true", "false", "null", "missing", "array", "object", "date1", "date2"]),
            (Field("v") < 3, ["int2", "dbl2", "dbl2.5"]),
            (Field("v") <= 2.5, ["int2", "dbl2", "dbl2.5"]),
            (Field("v") > 2, ["dbl2.5", "int3"]),
            (Field("v") >= 2.5, ["dbl2.5", "int3"]),
        ]),
        check("strings compare case-sensitively by Unicode scalar order", [
            (Field("v") == "abc", ["strB"]),
            (Field("v") > "abc", ["strU"]),
            (Field("v") < "abc", ["strA", "date1", "date2"]),
            (Field("v") >= "Abc", ["strA", "strB", "strU"]),
        ]),
        check("null equals only null, and a missing field is null", [
            (Field("v") == nil, ["null", "missing"]),
            (Field("v").isNull, ["null", "missing"]),
            (Field("v") <= nil, ["null", "missing"]),
            (Field("v") < nil, []),
            (!(Field("v") == nil), ["int2", "dbl2", "dbl2.5", "int3", "strA", "strB", "strU", "true", "false", "array", "object", "date1", "date2"]),
        ]),
        check("values of different kinds are unequal and never ordered", [
            (Field("v") == "2", []),
            (Field("v") == true, ["true"]),
            (Field("v") > false, ["true"]),
            (Field("v") < true, ["false"]),
            (Field("v") > 0, ["int2", "dbl2", "dbl2.5", "int3"]),
            (Field("v") == [2], ["array"]),
            (Field("v") == ["x": 2], ["object"]),
        ]),
        check("and, or and not combine filters", [
            (Field("v") >= 2 && Field("v") < 3, ["int2", "dbl2", "dbl2.5"]),
            (Field("v") == 3 || Field("v") == "abc", ["int3", "strB"]),
            (!(Field("v") > 2) && Field("id").hasPrefix("int"), ["int2"]),
        ]),
        check("contains, hasPrefix and hasSuffix are case-sensitive string tests", [
            (Field("v").contains("bc"), ["strA", "strB"]),
            (Field("v").contains("B"), []),
            (Field("v").hasPrefix("A"), ["strA"]),
            (Field("v").hasSuffix("ile"), ["strU"]),
            (Field("v").contains(""), ["strA", "strB", "strU", "date1", "date2"]),
        ]),
        check("strings compared with updatedAt are instants", [
            (Field("updatedAt") == "2026-06-01T12:00:00.500Z", ["date2"]),
            (Field("updatedAt") > "2026-01-01T00:00:00Z", ["date2"]),
            (Field("updatedAt") >= "2026-01-01T00:00:00.000Z", ["date1", "date2"]),
        ]),
    ]
}
