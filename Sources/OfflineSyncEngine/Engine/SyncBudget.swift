/// The time one ``SyncScheduler/runOnce(budget:)`` may take, as the push and the pull it runs see it: they ask it
/// before each request they would start, tell it how long each request took, and count what they pushed and pulled.
///
/// It reaches them as a task-local value (``current``), so that the push and the pull, and the child tasks that
/// send their requests, find it without a parameter: outside a run there is none, and nothing is checked.
///
/// A request may start when one as slow as the slowest so far, half again as long for a margin (a background
/// task's deadline is hard), ends before the deadline. Before the first request of a run the slowest is what the
/// scheduler's earlier runs measured (none: zero, and a first request starts while any time is left).
actor SyncBudget {
    /// The budget of the run the current task belongs to; nil outside a run.
    @TaskLocal static var current: SyncBudget?

    /// Thrown by a pull's page request the budget refused: the pages before it are stored, and the pull stops.
    struct Exhausted: Error {}

    /// The time now, on the scheduler's clock (an offset from its creation).
    nonisolated let now: @Sendable () -> Duration
    /// When the run must be over, on the same clock.
    let deadline: Duration
    /// The longest request so far.
    private(set) var slowest: Duration
    /// Whether a request was refused: the run stopped for its budget.
    private(set) var refused = false
    /// Operations the server accepted in this run.
    private(set) var pushed = 0
    /// Pulled records stored in this run.
    private(set) var pulled = 0

    /// A budget ending at `deadline` on `now`'s clock, knowing requests that took up to `slowest`.
    init(deadline: Duration, slowest: Duration, now: @escaping @Sendable () -> Duration) {
        self.deadline = deadline
        self.slowest = slowest
        self.now = now
    }

    /// Whether a request may start now; a refusal is remembered (``refused``).
    func allowsRequest() -> Bool {
        let time = now()
        if time < deadline, time + slowest * 1.5 <= deadline { return true }
        refused = true
        return false
    }

    /// A request took `duration`.
    func requestTook(_ duration: Duration) {
        slowest = max(slowest, duration)
    }

    /// The server accepted an operation.
    func operationPushed() {
        pushed += 1
    }

    /// `count` pulled records were stored.
    func recordsPulled(_ count: Int) {
        pulled += count
    }

    /// Whether the current run's budget allows a request now; true outside a run.
    static func allowsRequest() async -> Bool {
        await current?.allowsRequest() ?? true
    }

    /// Runs `request` and, within a run, tells the budget how long it took.
    static func timing<T: Sendable>(_ request: () async throws -> T,
                                    isolation: isolated (any Actor)? = #isolation) async rethrows -> T {
        guard let budget = current else { return try await request() }
        let start = budget.now()
        do {
            let result = try await request()
            await budget.requestTook(budget.now() - start)
            return result
        } catch {
            await budget.requestTook(budget.now() - start)
            throw error
        }
    }
}
