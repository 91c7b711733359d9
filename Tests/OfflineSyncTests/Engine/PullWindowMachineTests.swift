@testable import OfflineSyncCore
@testable import OfflineSyncEngine
import Testing

/// The pull window's machine as tables of events: each row is an action the machine must ask for, or an event fed
/// back to it (an answer, a page stored).
struct PullWindowMachineTests {
    enum Row {
        /// The machine's next action must be this one.
        case next(PullWindowMachine.Action)
        /// Page `index` answered with these records (nil: the request failed).
        case answer(Int, [JSONObject]?)
        /// Page `index` stored: all of its records, whether it must count as full, and what the pager said.
        case stored(Int, [JSONObject], full: Bool, endsWindow: Bool = false, pullHasMore: Bool = true)
    }

    /// Records `range` of the server's rows, `r0`, `r1`, ….
    static func rows(_ range: Range<Int>) -> [JSONObject] { range.map { ["id": .string("r\($0)")] } }

    /// A window of pages of `pageSize` from the start of a positional pull.
    static func machine(pageSize: Int = 4, limit: Int = 3, remaining: Int? = nil) -> PullWindowMachine {
        let base = PullPager.Request(skip: 0, top: pageSize, key: nil, afterId: nil)
        let window = PullWindow(base: base, pageSize: pageSize, remaining: remaining, maximumConcurrentRequests: limit)
        return PullWindowMachine(window: window, limit: limit, rebases: false)
    }

    /// Page 0 requested alone, answered full (four records) and stored.
    static let firstPageStoredFull: [Row] = [
        .next(.request(0)), .next(.waitForAnswer), .answer(0, rows(0..<4)), .next(.store(0, overlaps: false)),
        .stored(0, rows(0..<4), full: true),
    ]

    func play(_ table: [Row], on start: PullWindowMachine, sourceLocation: SourceLocation = #_sourceLocation) {
        var machine = start
        for (number, row) in table.enumerated() {
            switch row {
            case .next(let expected):
                let action = machine.nextAction()
                #expect(action == expected, "row \(number)", sourceLocation: sourceLocation)
            case .answer(let index, let items):
                machine.answered(index, items: items)
            case .stored(let index, let items, let full, let endsWindow, let pullHasMore):
                let wasFull = machine.pageStored(index, items: items)
                #expect(wasFull == full, "row \(number): full", sourceLocation: sourceLocation)
                machine.continueAfterPage(full: wasFull, endsWindow: endsWindow, pullHasMore: pullHasMore)
            }
        }
    }

    @Test func theFirstPageIsAskedAloneAndAShortOneEndsTheWindow() {
        play([
            .next(.request(0)), .next(.waitForAnswer),
            .answer(0, Self.rows(0..<2)), .next(.store(0, overlaps: false)), .stored(0, Self.rows(0..<2), full: false),
            .next(.end), .next(.end),
        ], on: Self.machine())
    }

    @Test func aFullFirstPageLetsTheNextOnesGoAheadUpToTheLimit() {
        play(Self.firstPageStoredFull + [
            .next(.request(1)), .next(.request(2)), .next(.request(3)), .next(.waitForAnswer),
            // Page 1 continues page 0: page 4 is asked for before page 1 is stored.
            .answer(1, Self.rows(3..<7)), .next(.request(4)), .next(.store(1, overlaps: true)),
            .stored(1, Self.rows(3..<7), full: true), .next(.waitForAnswer),
        ], on: Self.machine(limit: 3))
    }

    @Test func pagesAreStoredInOrderWhateverOrderTheyAreAnsweredIn() {
        play(Self.firstPageStoredFull + [
            .next(.request(1)), .next(.request(2)), .next(.waitForAnswer),
            // Page 2 answers first: it waits for page 1 and keeps its place in the window.
            .answer(2, Self.rows(6..<10)), .next(.waitForAnswer),
            .answer(1, Self.rows(3..<7)), .next(.request(3)), .next(.store(1, overlaps: true)),
            .stored(1, Self.rows(3..<7), full: true),
            .next(.request(4)), .next(.store(2, overlaps: true)), .stored(2, Self.rows(6..<10), full: true),
            .next(.waitForAnswer),
        ], on: Self.machine(limit: 2))
    }

    /// While the oldest page's answer is late, the answers after it do not let the window slide: no more than `limit`
    /// pages past the last accepted one are ever asked for, so the answers held and each request's `$skip` from the
    /// last accepted record stay bounded (a pull of 437 rows asked up to six pages past it before).
    @Test func lateAnswerToTheOldestPageHoldsTheWindowAtTheLimit() {
        play(Self.firstPageStoredFull + [
            .next(.request(1)), .next(.request(2)), .next(.request(3)), .next(.waitForAnswer),
            .answer(2, Self.rows(6..<10)), .next(.waitForAnswer),
            .answer(3, Self.rows(9..<13)), .next(.waitForAnswer), .next(.waitForAnswer),
            .answer(1, Self.rows(3..<7)), .next(.request(4)), .next(.store(1, overlaps: true)),
            .stored(1, Self.rows(3..<7), full: true),
            .next(.request(5)), .next(.store(2, overlaps: true)), .stored(2, Self.rows(6..<10), full: true),
            .next(.request(6)), .next(.store(3, overlaps: true)), .stored(3, Self.rows(9..<13), full: true),
            .next(.waitForAnswer),
        ], on: Self.machine(limit: 3))
    }

    @Test func aPageThatDoesNotContinueThePageBeforeEndsTheWindowUnstored() {
        play(Self.firstPageStoredFull + [
            .next(.request(1)), .next(.request(2)), .next(.waitForAnswer),
            // A row left the result between the requests: page 1 starts one record late.
            .answer(1, Self.rows(4..<8)), .next(.end), .next(.end),
        ], on: Self.machine(limit: 2))
    }

    @Test func aFailedPageComesUpInItsTurnSoThatItsErrorIsThrown() {
        play(Self.firstPageStoredFull + [
            .next(.request(1)), .next(.request(2)), .next(.waitForAnswer),
            .answer(2, nil), .next(.waitForAnswer),
            .answer(1, Self.rows(3..<7)), .next(.request(3)), .next(.store(1, overlaps: true)),
            .stored(1, Self.rows(3..<7), full: true),
            // Nothing is asked past a failed page: its store throws.
            .next(.store(2, overlaps: true)),
        ], on: Self.machine(limit: 2))
    }

    @Test(arguments: [(endsWindow: true, pullHasMore: true), (endsWindow: false, pullHasMore: false)])
    func aFullPageThatTheWindowOrThePullEndsWithEndsIt(endsWindow: Bool, pullHasMore: Bool) {
        play([
            .next(.request(0)), .answer(0, Self.rows(0..<4)), .next(.store(0, overlaps: false)),
            .stored(0, Self.rows(0..<4), full: true, endsWindow: endsWindow, pullHasMore: pullHasMore),
            .next(.end),
        ], on: Self.machine())
    }

    @Test func oneRequestAtATimeNeverGoesAhead() {
        play(Self.firstPageStoredFull + [.next(.end)], on: Self.machine(limit: 1))
    }

    @Test func aPullBoundedByATopAsksNoPagePastIt() {
        // 7 records left: page 1 covers records 3 to 6, and a page 2 would start at the last of them.
        play(Self.firstPageStoredFull + [
            .next(.request(1)), .next(.waitForAnswer),
        ], on: Self.machine(limit: 3, remaining: 7))
    }

    /// The request that keeps the window full goes out as soon as the oldest page is answered and continues the one
    /// before, ahead of its store: storing a page never delays the next request.
    @Test func theNextRequestGoesOutBeforeTheAnsweredPageIsStored() {
        play(Self.firstPageStoredFull + [
            .next(.request(1)), .next(.request(2)), .next(.request(3)), .next(.request(4)), .next(.waitForAnswer),
            .answer(1, Self.rows(3..<7)), .next(.request(5)), .next(.store(1, overlaps: true)),
        ], on: Self.machine(limit: 4))
    }

    @Test func aShortPageIsStoredWithoutAnyRequestPastIt() {
        play(Self.firstPageStoredFull + [
            .next(.request(1)), .next(.request(2)), .next(.waitForAnswer),
            .answer(1, Self.rows(3..<5)), .next(.store(1, overlaps: true)), .stored(1, Self.rows(3..<5), full: false),
            .next(.end),
        ], on: Self.machine(limit: 2))
    }

    @Test func aPageAskedForAfterThePageThatEndsTheWindowIsDropped() {
        play(Self.firstPageStoredFull + [
            .next(.request(1)), .next(.request(2)), .next(.waitForAnswer),
            .answer(1, Self.rows(3..<7)), .next(.request(3)), .next(.store(1, overlaps: true)),
            .stored(1, Self.rows(3..<7), full: true, endsWindow: true), .next(.end),
        ], on: Self.machine(limit: 2))
    }

    /// A request sent before the accepted page is stored counts its `$skip` from that page: a pull by id asks for the
    /// ids after its last record but one, `limit - 1` pages on at most, as when the page was stored first.
    @Test func aRequestSentBeforeTheAcceptedPageIsStoredCountsItsSkipFromThatPage() {
        let base = PullPager.Request(skip: 0, top: 4, key: nil, afterId: nil, byId: true)
        let window = PullWindow(base: base, pageSize: 4, remaining: nil, maximumConcurrentRequests: 3)
        var machine = PullWindowMachine(window: window, limit: 3, rebases: true)
        #expect(machine.nextAction() == .request(0))
        machine.answered(0, items: Self.rows(0..<4))
        #expect(machine.nextAction() == .store(0, overlaps: false))
        machine.continueAfterPage(full: machine.pageStored(0, items: Self.rows(0..<4)), endsWindow: false, pullHasMore: true)
        #expect(machine.nextAction() == .request(1))
        #expect(machine.nextAction() == .request(2))
        #expect(machine.nextAction() == .request(3))
        machine.answered(1, items: Self.rows(3..<7))
        #expect(machine.nextAction() == .request(4))
        #expect(machine.window.request(4) == PullPager.Request(skip: 6, top: 4, key: nil, afterId: "r5", byId: true))
        #expect(machine.nextAction() == .store(1, overlaps: true))
    }
}
