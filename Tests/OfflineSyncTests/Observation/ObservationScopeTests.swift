import Testing
@testable import OfflineSync

/// When a committed change provably cannot alter an observed result, and so is not worth a re-query.
struct ObservationScopeTests {
    static let top = Query(table: "T", filter: Field("done") == false, orderBy: [.ascending("id")], top: 2)
    static let shown = QueryResult(items: [["id": "a", "done": false], ["id": "b", "done": false]])

    @Test func changesOfAnotherTableCannotAlterIt() {
        #expect(!ObservationScope.mayAlter(Self.top, lastResult: Self.shown, by: [.upsert(table: "U", items: [["id": "a"]])]))
    }

    @Test func anItemNotShownThatDoesNotMatchAfterwardsCannotAlterIt() {
        #expect(!ObservationScope.mayAlter(Self.top, lastResult: Self.shown, by: [.upsert(table: "T", items: [["id": "z", "done": true]])]))
        #expect(!ObservationScope.mayAlter(Self.top, lastResult: Self.shown, by: [.delete(table: "T", ids: ["z"])]))
    }

    @Test func aShownItemAMatchingItemOrAWholesaleDeleteMayAlterIt() {
        #expect(ObservationScope.mayAlter(Self.top, lastResult: Self.shown, by: [.upsert(table: "T", items: [["id": "A", "done": true]])]))
        #expect(ObservationScope.mayAlter(Self.top, lastResult: Self.shown, by: [.upsert(table: "T", items: [["id": "c", "done": false]])]))
        #expect(ObservationScope.mayAlter(Self.top, lastResult: Self.shown, by: [.delete(table: "T", ids: ["b"])]))
        #expect(ObservationScope.mayAlter(Self.top, lastResult: Self.shown, by: [.deleteAll(table: "T", matching: nil)]))
    }

    @Test func withSkipOrACountAnyChangeOfTheTableMayAlterIt() {
        var skipped = Self.top
        skipped.skip = 1
        var counted = Self.top
        counted.includeTotalCount = true
        for query in [skipped, counted] {
            #expect(ObservationScope.mayAlter(query, lastResult: Self.shown, by: [.delete(table: "T", ids: ["z"])]))
        }
    }
}
