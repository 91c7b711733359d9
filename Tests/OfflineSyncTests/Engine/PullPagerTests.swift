import Testing
@testable import OfflineSync

/// The reference request sequences as unit tests of the pure pager.
struct PullPagerTests {
    /// Runs the pager over pages of the given sizes and returns the (top, skip) of each request.
    private func requests(skip: Int? = nil, limit: Int?, pageSize: Int = 50, pages: [Int]) -> [[Int]] {
        var pager = PullPager(skip: skip, limit: limit, pageSize: pageSize)
        var sent: [[Int]] = []
        var remaining = pages[...]
        while let request = pager.nextRequest {
            sent.append([request.top, request.skip])
            _ = pager.pageReceived(count: remaining.popFirst() ?? 0, maxUpdatedAt: nil)
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

    private func ms(_ text: String) -> Int64 { Timestamp.milliseconds(from: text) ?? -1 }

    @Test func incrementalTokenMovesToEachPageMaximum() {
        var pager = PullPager(token: nil, pageSize: 50)
        var seen: [[Int64]] = []
        let pages: [(Int, String?)] = [(2, "1999-12-03T15:44:29.000Z"), (2, "1999-12-04T16:44:59.000Z"), (0, nil)]
        var newTokens: [Int64?] = []
        for (count, max) in pages {
            guard let request = pager.nextRequest else { break }
            seen.append([request.token ?? -1, Int64(request.skip)])
            newTokens.append(pager.pageReceived(count: count, maxUpdatedAt: max.map(ms)).newToken)
        }
        #expect(pager.nextRequest == nil)
        #expect(seen == [[0, 0], [ms("1999-12-03T15:44:29.000Z"), 0], [ms("1999-12-04T16:44:59.000Z"), 0]])
        #expect(newTokens == [ms("1999-12-03T15:44:29.000Z"), ms("1999-12-04T16:44:59.000Z"), nil])
    }

    @Test func incrementalPullRevertsToSkipInsideEqualTimestampsAndBack() {
        let d1203 = ms("1999-12-03T00:00:00.000Z"), d0101 = ms("2000-01-01T00:00:00.000Z"), d0102 = ms("2000-01-02T00:00:00.000Z")
        let pages: [[Int64]] = [[d1203, d0101], [d0101, d0101], [d0101, d0101], [d0101, d0102], [d0102], []]
        var pager = PullPager(token: nil, pageSize: 50)
        var seen: [[Int64]] = []
        for page in pages {
            guard let request = pager.nextRequest else { break }
            seen.append([request.token ?? -1, Int64(request.skip)])
            _ = pager.pageReceived(count: page.count, maxUpdatedAt: page.max())
        }
        #expect(pager.nextRequest == nil)
        #expect(seen == [[0, 0], [d0101, 0], [d0101, 2], [d0101, 4], [d0102, 0], [d0102, 1]])
    }

    @Test func incrementalPullStartsFromTheStoredToken() {
        let pager = PullPager(token: 1234, pageSize: 10)
        #expect(pager.nextRequest == PullPager.Request(skip: 0, top: 10, token: 1234))
    }

    @Test func tokenMaximumCountsEveryItemOfThePage() {
        var pager = PullPager(token: 100, pageSize: 50)
        #expect(pager.pageReceived(count: 3, maxUpdatedAt: 100).newToken == nil)
        #expect(pager.nextRequest?.skip == 3)
        #expect(pager.pageReceived(count: 1, maxUpdatedAt: 200).newToken == 200)
        #expect(pager.nextRequest?.skip == 0)
    }
}
