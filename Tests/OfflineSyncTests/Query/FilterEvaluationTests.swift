import Testing
import OfflineSync

struct FilterEvaluationTests {
    static let item: JSONObject = [
        "id": "x", "int": 2, "double": 2.5, "whole": 2.0, "big": .int(Int64.max), "text": "Émile", "flag": true,
        "none": nil, "list": [1, 2], "object": ["k": "v"], "updatedAt": "2026-03-01T10:00:00.000Z",
    ]

    static let cases: [(Filter, Bool)] = [
        // ints, doubles, mixed
        (Field("int") == 2, true), (Field("int") == 2.0, true), (Field("whole") == 2, true), (Field("int") != 2, false),
        (Field("int") < 2.5, true), (Field("double") > 2, true), (Field("double") <= 2.5, true), (Field("double") >= 3, false),
        (Field("big") > 9.2e18, true), (Field("big") == 9_223_372_036_854_775_807.0, false), (Field("big") < 9_223_372_036_854_775_807.0, true),
        // strings
        (Field("text") == "Émile", true), (Field("text") == "émile", false), (Field("text") != "émile", true),
        (Field("text") > "E", true), (Field("text") < "Z", false), (Field("text") >= "Émile", true),
        // bools
        (Field("flag") == true, true), (Field("flag") > false, true), (Field("flag") != false, true), (Field("flag") == 1, false),
        // null and missing
        (Field("none") == nil, true), (Field("missing") == nil, true), (Field("none") != nil, false),
        (Field("int") == nil, false), (Field("int") != nil, true), (Field("missing").isNull, true), (Field("none") >= nil, true),
        (Field("none") > nil, false), (Field("none") < 1, false), (Field("missing") > 1, false),
        // kinds differ
        (Field("int") == "2", false), (Field("int") != "2", true), (Field("int") < "3", false), (Field("text") > 1, false),
        (Field("flag") < 2, false), (Field("list") == [1, 2], true), (Field("list") == [2, 1], false), (Field("object") == ["k": "v"], true),
        (Field("list") > [1], false),
        // string functions
        (Field("text").contains("mil"), true), (Field("text").contains("MIL"), false), (Field("text").hasPrefix("É"), true),
        (Field("text").hasPrefix("E"), false), (Field("text").hasSuffix("ile"), true), (Field("int").contains("2"), false),
        (Field("missing").hasPrefix(""), false),
        // logic
        (Field("int") == 2 && Field("flag") == true, true), (Field("int") == 3 || Field("flag") == true, true),
        (!(Field("int") == 2), false), (!(Field("int") == 3) && !(Field("none") != nil), true),
        // timestamps
        (Field("updatedAt") == "2026-03-01T11:00:00.000+01:00", true), (Field("updatedAt") > "2026-03-01T09:59:59.999Z", true),
        (Field("updatedAt") < "2026-03-01T10:00:00Z", false), (Field("updatedAt") >= "2026-03-01T10:00:00Z", true),
        (Field("updatedAt") == Date(timeIntervalSince1970: 1_772_359_200), true),
        (Field("updatedAt") > Date(timeIntervalSince1970: 1_772_359_200), false),
        (Field("text") < Date(timeIntervalSince1970: 0), false), (Field("text") != Date(timeIntervalSince1970: 0), true),
    ]

    @Test(arguments: cases)
    func filterEvaluatesLikeTheServer(_ filter: Filter, _ expected: Bool) {
        #expect(filter.matches(Self.item) == expected, "\(filter.odata)")
    }

    @Test func invalidFieldNamesFailValidation() {
        #expect(throws: QueryError.invalidFieldName("a b")) { try (Field("a b") == 1).validate() }
        #expect(throws: QueryError.invalidFieldName("x')or(1")) { try (Field("ok") == 1 || !Field("x')or(1").isNull).validate() }
        #expect(throws: QueryError.invalidFieldName("1x")) {
            try Query(table: "T", orderBy: [.ascending("1x")]).validate(requireIdentifiers: true)
        }
        #expect(throws: QueryError.invalidFieldName("")) {
            try Query(table: "T", select: [""]).validate(requireIdentifiers: true)
        }
    }

    @Test func validFieldNamesPassValidation() throws {
        try (Field("_a1") == 1 && Field("updatedAt").hasPrefix("x")).validate()
        try Query(table: "T", orderBy: [.descending("B")], select: ["c"]).validate(requireIdentifiers: true)
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
