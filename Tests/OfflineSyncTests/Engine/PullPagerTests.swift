import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// The reference request sequences as unit tests of the pure pager.
struct PullPagerTests {
    /// Runs the pager over pages of the given sizes and returns the (top, skip) of each request.
    private func requests(skip: Int? = nil, limit: Int?, pageSize: Int = 50, pages: [Int]) -> [[Int]] {
        var pager = PullPager(skip: skip, limit: limit, pageSize: pageSize)
        var sent: [[Int]] = []
        var remaining = pages[...]
        while let request = pager.nextRequest {
            sent.append([request.top, request.skip])
            _ = pager.pageReceived(count: remaining.popFirst() ?? 0, last: nil)
        }
        return sent
    }

    @Test func fullPullPagesUntilAnEmptyPage() {
        #expect(requests(limit: nil, pages: [2, 0]) == [[50, 0], [50, 2]])
    }

    @Test func limitOf150WithPageSize50MakesThreeRequests() {
        #expect(requests(limit: 150, pages: [50, 50, 50]) == [[50, 0], [50, 50], [50, 100]])
    }

    @Test func limitOf30WithPageSize10MakesThreeRequests() {
        #expect(requests(limit: 30, pageSize: 10, pages: [10, 10, 10]) == [[10, 0], [10, 10], [10, 20]])
    }

    @Test func shortPagesAreNotTheEnd() {
        #expect(requests(limit: 1000, pages: [50, 50, 25, 0]) == [[50, 0], [50, 50], [50, 100], [50, 125]])
    }

    @Test func limitBelowPageSizeStopsAfterOnePageEvenWhenTheServerSendsMore() {
        #expect(requests(limit: 25, pages: [50]) == [[25, 0]])
    }

    @Test func serverPageSizeBelowTopShrinksTheLastTop() {
        #expect(requests(limit: 100, pages: [25, 25, 10, 0]) == [[50, 0], [50, 25], [50, 50], [40, 60]])
    }

    @Test func limitReachedExactlyEndsWithoutAnExtraRequest() {
        #expect(requests(limit: 148, pages: [50, 50, 48]) == [[50, 0], [50, 50], [48, 100]])
    }

    @Test func offsetIsAddedToEverySkip() {
        #expect(requests(skip: 12, limit: nil, pages: [50, 38, 0]) == [[50, 12], [50, 62], [50, 100]])
        #expect(requests(skip: 12, limit: 110, pages: [50, 50, 10]) == [[50, 12], [50, 62], [10, 112]])
    }

    @Test func pageSizeIsTheTop() {
        #expect(requests(limit: nil, pageSize: 51, pages: [0]) == [[51, 0]])
    }

    @Test func limitOfZeroSendsNoRequest() {
        #expect(requests(limit: 0, pages: []).isEmpty)
    }

    private func key(_ updatedAt: Int64, _ id: String?) -> PullKey { PullKey(updatedAt: updatedAt, id: id) }

    /// Runs an incremental pager over pages given by their record count and last key; returns each request's key and
    /// skip, and the keys each page stored as the token.
    private func incremental(from start: PullKey?, pages: [(Int, PullKey?)]) -> (requests: [PullPager.Request], tokens: [PullKey?]) {
        var pager = PullPager(key: start, pageSize: 50)
        var requests: [PullPager.Request] = [], tokens: [PullKey?] = []
        var remaining = pages[...]
        while let request = pager.nextRequest {
            requests.append(request)
            let (count, last) = remaining.popFirst() ?? (0, nil)
            tokens.append(pager.pageReceived(count: count, last: last).newKey)
        }
        return (requests, tokens)
    }

    @Test func incrementalPullAsksAfterTheLastRecordOfEachPage() {
        let run = incremental(from: nil, pages: [(50, key(10, "b")), (50, key(10, "x")), (3, key(20, "a")), (0, nil)])
        #expect(run.requests.map(\.key) == [.start, key(10, "b"), key(10, "x"), key(20, "a")])
        #expect(run.requests.allSatisfy { $0.skip == 0 && $0.top == 50 })
        #expect(run.tokens == [key(10, "b"), key(10, "x"), key(20, "a"), nil])
    }

    @Test func aTokenOfAnEarlierVersionAsksForEveryRecordAtItsInstantOnce() {
        let run = incremental(from: key(10, nil), pages: [(50, key(10, "m")), (1, key(11, "a"))])
        #expect(run.requests.map(\.key) == [key(10, nil), key(10, "m"), key(11, "a")])
        #expect(run.tokens.first == key(10, "m"))
    }

    /// A server keeping finer timestamps than it sends answers "after (T, id)" with T's records again: a page that
    /// ends on the key it was asked after goes back to paging that instant by position, then by key once past it.
    @Test func aPageEndingOnItsOwnKeyPagesThatInstantByPosition() {
        let run = incremental(from: nil, pages: [
            (50, key(10, "r50")), (50, key(10, "r50")), (50, key(10, "r50")), (50, key(10, "r99")), (50, key(12, "a")),
            (0, nil),
        ])
        #expect(run.requests.map(\.key) == [.start, key(10, "r50"), key(10, nil), key(10, nil), key(10, nil), key(12, "a")])
        #expect(run.requests.map(\.skip) == [0, 0, 0, 50, 100, 0])
        // The token stays at the last key while the instant is paged by position.
        #expect(run.tokens == [key(10, "r50"), nil, nil, nil, key(12, "a"), nil])
    }

    @Test func aPageWhoseLastRecordHasNoKeyIsPagedByPosition() {
        let run = incremental(from: key(5, "a"), pages: [(50, nil), (50, nil), (2, key(9, "z"))])
        #expect(run.requests.map(\.key) == [key(5, "a"), key(5, nil), key(5, nil), key(9, "z")])
        #expect(run.requests.map(\.skip) == [0, 0, 50, 0])
    }

    @Test func aPageEndingBeforeItsKeyNeverMovesTheTokenBack() {
        var pager = PullPager(key: key(100, "m"), pageSize: 50)
        let step = pager.pageReceived(count: 50, last: key(90, "z"))
        #expect(step.newKey == nil && step.endsWindow)
        #expect(pager.key == key(100, nil))
    }

    @Test func incrementalPullStartsFromTheStoredKey() {
        let pager = PullPager(key: key(1234, "x"), pageSize: 10)
        #expect(pager.nextRequest == PullPager.Request(skip: 0, top: 10, key: key(1234, "x")))
    }

    @Test func aFullPullByIdAsksAfterTheLastIdWithTheOffsetOnTheFirstRequestOnly() {
        var pager = PullPager(skip: 7, limit: 120, pageSize: 50, byId: true)
        var sent: [PullPager.Request] = []
        let pages: [(Int, String?)] = [(50, "m"), (50, nil), (20, "z")]
        var remaining = pages[...]
        while let request = pager.nextRequest {
            sent.append(request)
            let (count, lastId) = remaining.popFirst() ?? (0, nil)
            _ = pager.pageReceived(count: count, last: nil, lastId: lastId)
        }
        // A page whose last record has no id is passed by position from the last id.
        #expect(sent.map(\.afterId) == [nil, "m", "m"])
        #expect(sent.map(\.skip) == [7, 0, 50])
        #expect(sent.map(\.top) == [50, 50, 20])
        #expect(sent.allSatisfy { $0.byId })
    }
}
