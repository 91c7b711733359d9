import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// When a committed change provably cannot alter an observed result, and so is not worth a re-query.
struct ObservationScopeTests {
    static let top = Query(table: "T", filter: Field("done") == false, orderBy: [.ascending("id")], top: 2)
    static let shown = QueryResult(items: [["id": "a", "done": false], ["id": "b", "done": false]])

    private func mayAlter(_ query: Query, _ last: QueryResult, _ changes: [StoreChange]) -> Bool {
        ObservationScope.mayAlter(query, lastResult: last, shown: ObservationScope.shownKeys(of: last), by: changes)
    }

    @Test func changesOfAnotherTableCannotAlterIt() {
        #expect(!mayAlter(Self.top, Self.shown, [.upsert(table: "U", items: [["id": "a"]])]))
    }

    @Test func anItemNotShownThatDoesNotMatchAfterwardsCannotAlterIt() {
        #expect(!mayAlter(Self.top, Self.shown, [.upsert(table: "T", items: [["id": "z", "done": true]])]))
        #expect(!mayAlter(Self.top, Self.shown, [.delete(table: "T", ids: ["z"])]))
    }

    @Test func aShownItemAMatchingItemOrAWholesaleDeleteMayAlterIt() {
        #expect(mayAlter(Self.top, Self.shown, [.upsert(table: "T", items: [["id": "A", "done": true]])]))
        #expect(mayAlter(Self.top, Self.shown, [.upsert(table: "T", items: [["id": "0", "done": false]])]))
        #expect(mayAlter(Self.top, Self.shown, [.delete(table: "T", ids: ["b"])]))
        #expect(mayAlter(Self.top, Self.shown, [.deleteAll(table: "T", matching: nil)]))
    }

    @Test func aMatchingItemSortingAfterAFullWindowCannotAlterItButOneBeforeOrTiedMay() {
        let query = Query(table: "T", filter: Field("done") == false, orderBy: [.descending("n")], top: 2)
        let shown = QueryResult(items: [["id": "a", "done": false, "n": 9], ["id": "b", "done": false, "n": 5]])
        #expect(!mayAlter(query, shown, [.upsert(table: "T", items: [["id": "c", "done": false, "n": 4]])]))
        #expect(mayAlter(query, shown, [.upsert(table: "T", items: [["id": "c", "done": false, "n": 5]])]))
        #expect(mayAlter(query, shown, [.upsert(table: "T", items: [["id": "c", "done": false, "n": 6]])]))
        var notFull = query
        notFull.top = 3
        #expect(mayAlter(notFull, shown, [.upsert(table: "T", items: [["id": "c", "done": false, "n": 1]])]))
    }

    @Test func withSkipOrACountAnyChangeOfTheTableMayAlterIt() {
        var skipped = Self.top
        skipped.skip = 1
        var counted = Self.top
        counted.includeTotalCount = true
        for query in [skipped, counted] {
            #expect(mayAlter(query, Self.shown, [.delete(table: "T", ids: ["z"])]))
        }
    }
}
