/// How one ``SyncScheduler/runOnce(budget:)`` went: how far it came through the configured steps, what it moved,
/// and why it stopped.
public struct SyncRunReport: Sendable {
    /// The steps that ran to their end.
    public var completedSteps: Int
    /// The steps that did not: the one stopped or failed, and those after it. The next run starts again with the
    /// first step; a push or an incremental pull goes on from where this one stopped.
    public var remainingSteps: Int
    /// Operations the server accepted, by the push steps and the pushes before pulls.
    public var pushedOperations: Int
    /// Pulled records stored.
    public var pulledRecords: Int
    /// Whether the run stopped before its end because its budget ran out or its task was cancelled (a background
    /// task's expiration); not a failure.
    public var stoppedByBudget: Bool
    /// The error that ended the run, when a step failed; nil when every step completed or the budget stopped it.
    public var failure: (any Error)?

    /// A report; a test double of a scheduler can make one.
    public init(completedSteps: Int, remainingSteps: Int, pushedOperations: Int = 0, pulledRecords: Int = 0,
                stoppedByBudget: Bool = false, failure: (any Error)? = nil) {
        self.completedSteps = completedSteps
        self.remainingSteps = remainingSteps
        self.pushedOperations = pushedOperations
        self.pulledRecords = pulledRecords
        self.stoppedByBudget = stoppedByBudget
        self.failure = failure
    }

    /// Whether every step completed.
    public var isComplete: Bool { remainingSteps == 0 }
}
