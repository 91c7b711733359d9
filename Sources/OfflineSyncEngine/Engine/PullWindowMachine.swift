import OfflineSyncCore
import OfflineSyncStore

/// The fetching of one pull window (``PullWindow``) as a state machine, events in and actions out: which page to
/// request, which answered page to store, when to wait and when the window ends. `SyncContext.pullWindow(_:run:permits:)`
/// only carries out its actions (a request to the remote, a page stored) and feeds back what came of them, so the
/// rules are tested as tables of events without a remote or a store.
///
/// The first page is requested alone; once it is stored, is full and the pull goes on, up to `limit` pages past the
/// page being stored are kept requested (a sliding window). A page is *accepted* as soon as its answer is the next in
/// the window's order and continues the page before it: the pages after it are rebased on it and the request that
/// keeps `limit` pages past it goes out at once, before it is stored, so storing a page (and the CPU it takes on a busy
/// machine) never delays the next request. A page answered early waits for the pages before it and holds its place,
/// so neither the answers held in memory nor a request's distance from the last accepted record (its `$skip`, which a
/// server pays for) grow while one slow answer holds the window back. Pages are stored in the window's order, whatever
/// order they are answered in. The window ends when a page is short, ends the window in the pager, leaves the pull
/// with nothing more to ask, or does not continue the page before it (rows changed on the server between the
/// requests: the pager then asks again after the last stored page). A page requested after the one that ends the
/// window is dropped unstored, as every page ahead is then.
struct PullWindowMachine {
    /// What the loop does next.
    enum Action: Equatable {
        /// Request page `index` of the window (``PullWindow/request(_:)``), then ask for the next action.
        case request(Int)
        /// Store answered page `index` (or throw its failure): without its first record when `overlaps` (it repeats
        /// the last record of the page before). Then report
        /// ``pageStored(_:items:)`` and ``continueAfterPage(full:endsWindow:pullHasMore:)``.
        case store(Int, overlaps: Bool)
        /// Wait for the next answer, and report it (``answered(_:items:)``).
        case waitForAnswer
        /// The window is done.
        case end
    }

    /// The window's pages; rebased as pages are accepted.
    private(set) var window: PullWindow
    /// How many pages past the last accepted one may be requested (answered or not) once the first page is stored.
    private let limit: Int
    /// Whether an accepted page rebases the window's later pages on its last record but one (pulls paged by key or id).
    private let rebases: Bool
    private var requested = 0
    private var outstanding = 0
    /// How many pages are stored; the next to store is page `stored`.
    private var stored = 0
    /// Whether the pages after the first may be requested (the first was stored, full, and the pull goes on).
    private var goesAhead = false
    /// The records of the answered pages not yet stored, by index; nil for a failed request.
    private var answers: [Int: [JSONObject]?] = [:]
    /// The page accepted (answered in order and continuing the one before) and not stored yet, and whether it was
    /// full: only a full page lets the window request past it.
    private var accepted: (index: Int, full: Bool)?
    /// The last record of the last accepted page.
    private var previousLast: JSONObject?
    private var ended = false

    /// A machine for `window`, with at most `limit` pages requested past the last accepted one; `rebases` as for a pull
    /// paged by key or id.
    init(window: PullWindow, limit: Int, rebases: Bool) {
        self.window = window
        self.limit = max(1, limit)
        self.rebases = rebases
    }

    /// The next action; a request it returns counts as sent.
    mutating func nextAction() -> Action {
        if ended { return .end }
        if accepted == nil, let answer = answers[stored] {
            if stored > 0, let items = answer, !PullWindow.continues(items, after: previousLast) {
                ended = true
                return .end
            }
            accept(stored, items: answer)
        }
        // Pages past an accepted page count from it, so that its store runs while they are in flight; a short or
        // failed one ends the window once stored, and nothing is asked past it.
        let ahead = accepted.map { $0.full && requested - ($0.index + 1) < limit } ?? (requested - stored < limit)
        if requested == 0 || (goesAhead && ahead), window.request(requested) != nil {
            requested += 1
            outstanding += 1
            return .request(requested - 1)
        }
        if let accepted { return .store(accepted.index, overlaps: accepted.index > 0) }
        if outstanding > 0 { return .waitForAnswer }
        ended = true
        return .end
    }

    /// Accepts answered page `index` (nil `items`: the request failed, which its store throws): the pages after it are
    /// rebased on it (pulls by key or id) and checked against its last record.
    private mutating func accept(_ index: Int, items: [JSONObject]?) {
        guard let items else {
            accepted = (index, false)
            return
        }
        if rebases, items.count >= 2 { window.rebase(afterPage: index, lastButOne: items[items.count - 2]) }
        let asked = window.request(index)?.top ?? 0
        accepted = (index, items.count >= min(asked, window.pageSize))
        previousLast = items.last
    }

    /// Page `index` was answered with `items` (nil: the request failed).
    mutating func answered(_ index: Int, items: [JSONObject]?) {
        outstanding -= 1
        answers[index] = .some(items)
    }

    /// Page `index` was stored; `items` are all of its records, the overlapping first one too. Returns whether the page
    /// was full (as many records as asked for), which the pull learns its page size from.
    mutating func pageStored(_ index: Int, items: [JSONObject]) -> Bool {
        answers[index] = nil
        if accepted?.index != index { accept(index, items: items) }
        let full = accepted?.full ?? false
        accepted = nil
        return full
    }

    /// After ``pageStored(_:items:)`` of a page that was `full`: the window goes on unless the page `endsWindow` in the
    /// pager or the pull has nothing more to ask.
    mutating func continueAfterPage(full: Bool, endsWindow: Bool, pullHasMore: Bool) {
        guard full, !endsWindow, pullHasMore else {
            ended = true
            return
        }
        stored += 1
        goesAhead = true
    }
}
