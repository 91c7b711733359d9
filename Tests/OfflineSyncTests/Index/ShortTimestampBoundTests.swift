import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
import OfflineSync

/// A bound shorter than the stored timestamps (a date, a time without seconds or without a zone) does not read as an
/// instant, so the filter compares it with `updatedAt` as text: it is an exact range of any index on the field.
struct ShortTimestampBoundTests {
    static let index = IndexDefinition(table: "TodoItem", fields: ["complete", "updatedAt"])
    static let oneDay = Query(table: "TodoItem",
                              filter: Field("complete") == false && Field("updatedAt") >= "2026-12-01" && Field("updatedAt") < "2026-12-02",
                              orderBy: [.ascending("updatedAt")])

    /// Values at the edges of the bounds: the bound itself, texts it is a prefix of, other ISO 8601 forms, other kinds.
    static let items: [JSONObject] = [
        ["id": "day", "complete": false, "updatedAt": "2026-12-01"],
        ["id": "midnight", "complete": false, "updatedAt": "2026-12-01T00:00:00.000Z"],
        ["id": "morning", "complete": false, "updatedAt": "2026-12-01T10:20:30.000Z"],
        ["id": "minute", "complete": false, "updatedAt": "2026-12-01T10:20"],
        ["id": "minuteZ", "complete": false, "updatedAt": "2026-12-01T10:20Z"],
        ["id": "noZone", "complete": false, "updatedAt": "2026-12-01T10:20:30"],
        ["id": "noFraction", "complete": false, "updatedAt": "2026-12-01T10:20:30Z"],
        ["id": "offset", "complete": false, "updatedAt": "2026-12-01T23:30:00+01:00"],
        ["id": "late", "complete": false, "updatedAt": "2026-12-01T23:59:59.999Z"],
        ["id": "nextDay", "complete": false, "updatedAt": "2026-12-02"],
        ["id": "nextMidnight", "complete": false, "updatedAt": "2026-12-02T00:00:00.000Z"],
        ["id": "before", "complete": false, "updatedAt": "2026-11-30T23:59:59.999Z"],
        ["id": "number", "complete": false, "updatedAt": 20261201],
        ["id": "null", "complete": false, "updatedAt": nil],
        ["id": "missing", "complete": false],
        ["id": "flag", "complete": false, "updatedAt": true],
        ["id": "done", "complete": true, "updatedAt": "2026-12-01T10:20:30.000Z"],
    ]

    static func store() throws -> TableSet {
        var tables = TableSet()
        try tables.defineIndexes([index, IndexDefinition(table: "TodoItem", fields: ["dueDate"])])
        tables.apply([.upsert(table: "TodoItem", items: items + items.map { item in
            var copy = item
            copy["id"] = .string("due-" + (item["id"]?.stringValue ?? ""))
            copy["dueDate"] = item["updatedAt"]
            copy["updatedAt"] = nil
            return copy
        })])
        return tables
    }

    static func expectServedExactly(_ query: Query, by tables: TableSet, on field: String) throws {
        let plan = try tables.explain(query)
        #expect(plan.index != nil, "\(plan)")
        #expect(plan.reason.contains("range on \(field)"), "\(plan)")
        #expect(!plan.reason.contains("narrowed to whole days"), "\(plan)")
        #expect(!plan.reason.contains("tested on each entry"), "\(plan)")
        #expect(plan.reason.contains("decide every match"), "\(plan)")
    }

    static func expectAnswersAsEvaluate(_ query: Query, _ tables: TableSet) throws {
        let expected = query.evaluate(over: tables.items(table: query.table)).items.map { $0["id"] }
        let got = try tables.read(query).items.map { $0["id"] }
        if query.orderBy.contains(where: { $0.field == "id" }) {
            #expect(got == expected, "\(query)")
        } else {
            #expect(Set(got) == Set(expected), "\(query)")
        }
    }

    @Test func explainShowsTheIndexAndRangeForADateOnlyBound() throws {
        let tables = try Self.store()
        let plan = try tables.explain(Self.oneDay)
        #expect(plan.access == .index(Self.index, equalityFields: ["complete"]))
        #expect(plan.description.contains("(complete=? AND updatedAt>=? AND updatedAt<?)"), "\(plan)")
        #expect(plan.reason.contains("orderBy follows the index"), "\(plan)")
        try Self.expectServedExactly(Self.oneDay, by: tables, on: "updatedAt")
    }

    @Test func theOpenItemsOfOneDayAreTheTextsBetweenTheTwoDates() throws {
        let tables = try Self.store()
        let ids = try tables.read(Self.oneDay).items.map { $0["id"]?.stringValue }
        // In the order of the texts: a proper prefix first, then by bytes (":" < "Z", "." < "Z").
        #expect(ids == ["day", "midnight", "minute", "noZone", "morning", "noFraction", "minuteZ", "offset", "late"])
        try Self.expectAnswersAsEvaluate(Self.oneDay, tables)
    }

    @Test func explainShowsTheIndexAndRangeForAMinutePrecisionBound() throws {
        let tables = try Self.store()
        let query = Query(table: "TodoItem", filter: Field("complete") == false && Field("updatedAt") > "2026-12-01T10:20",
                          orderBy: [.descending("updatedAt"), .ascending("id")])
        try Self.expectServedExactly(query, by: tables, on: "updatedAt")
        try Self.expectAnswersAsEvaluate(query, tables)
    }

    @Test func anEqualityWithATextThatIsNoInstantIsServedAsTextEquality() throws {
        let tables = try Self.store()
        let query = Query(table: "TodoItem", filter: Field("complete") == false && Field("updatedAt") == "2026-12-01")
        let plan = try tables.explain(query)
        #expect(plan.access == .index(Self.index, equalityFields: ["complete", "updatedAt"]), "\(plan)")
        #expect(try tables.read(query).items.map { $0["id"] } == ["day"])
    }

    @Test func everyShortBoundAndOperatorAnswersAsEvaluateOnBothKindsOfField() throws {
        let tables = try Self.store()
        let bounds = ["2026-12-01", "2026-12-02", "2026-12", "2026-12-01T", "2026-12-01T10:20", "2026-12-01T10:20:30",
                      "2026-12-01T10:20:30.5", "2026-12-01T10:20:30.000", "2026-12-01T10:20Z"]
        for field in ["updatedAt", "dueDate"] {
            for bound in bounds {
                let conditions = [Field(field) < .string(bound), Field(field) <= .string(bound), Field(field) > .string(bound),
                                  Field(field) >= .string(bound), Field(field) >= .string(bound) && Field(field) <= "2026-12-01T23"]
                for condition in conditions {
                    let query = Query(table: "TodoItem", filter: condition, orderBy: [.ascending(field), .ascending("id")])
                    try Self.expectServedExactly(query, by: tables, on: field)
                    try Self.expectAnswersAsEvaluate(query, tables)
                }
            }
        }
    }

    @Test func aBoundThatReadsAsAnInstantIsStillComparedAsAnInstant() throws {
        let tables = try Self.store()
        for bound in ["2026-12-01T10:20:30Z", "2026-12-01T10:20:30.000Z", "2026-12-01T11:20:30+01:00"] {
            let query = Query(table: "TodoItem", filter: Field("complete") == false && Field("updatedAt") >= .string(bound),
                              orderBy: [.ascending("id")])
            let plan = try tables.explain(query)
            #expect(plan.reason.contains("range on updatedAt (instants: narrowed to whole days)"), "\(plan)")
            #expect(try tables.read(query).items.map { $0["id"]?.stringValue } == ["late", "morning", "nextMidnight", "noFraction", "offset"])
            try Self.expectAnswersAsEvaluate(query, tables)
        }
    }
}
