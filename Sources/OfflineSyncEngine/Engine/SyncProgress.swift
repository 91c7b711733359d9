import OfflineSyncCore
import OfflineSyncStore
/// One progress report of a push or a pull, delivered through ``SyncContext/progressUpdates(bufferingNewest:)``.
///
/// A push reports `.started` with the number of queued operations as `total`, one `.advanced` per operation
/// (`completed` counts operations done, failed ones included), then `.finished` or `.failed`. A pull reports
/// `.started`, one `.advanced` per page applied (`completed` counts records received, `pages` counts pages,
/// `total` is the query's `top` or the server's count when known), then `.finished` or `.failed`. A pull that
/// pushes first reports that push as its own activity before the pull's.
///
/// ```swift
/// let updates = await context.progressUpdates()
/// Task { for await progress in updates { bar.update(progress.fractionCompleted ?? 0) } }
/// try await context.table("TodoItem").pull(settings: PullSettings(pageSize: 100, requestsTotalCount: true))
/// ```
public struct SyncProgress: Sendable, Hashable, CustomStringConvertible {
    /// Which sync action is reporting.
    public enum Activity: Sendable, Hashable {
        /// A push of the whole queue.
        case push
        /// A pull of one table; `queryId` is set for an incremental pull.
        case pull(table: String, queryId: String?)
    }

    /// Where the action is.
    public enum Phase: Sendable, Hashable {
        /// The action started; nothing is done yet.
        case started
        /// An operation (push) or a page (pull) was processed.
        case advanced
        /// The action completed successfully.
        case finished
        /// The action ended with an error (a push with operation errors too).
        case failed
    }

    /// Which sync action is reporting.
    public var activity: Activity
    /// Where the action is.
    public var phase: Phase
    /// Operations done (push) or records received (pull) so far.
    public var completed: Int
    /// The total, when known: the queued operations (push; operations queued during the push may add to it),
    /// or the records to expect (pull, from the query's `top` or the server's count).
    public var total: Int?
    /// Pages received so far (pull; always 0 for a push).
    public var pages: Int

    /// Set on the `.started` report of an incremental pull whose stored delta token was dropped because the
    /// query's filter changed since it was stored: the pull reads every matching record again.
    public var tokenReset: Bool

    /// Creates a progress report.
    public init(activity: Activity, phase: Phase, completed: Int, total: Int?, pages: Int, tokenReset: Bool = false) {
        self.activity = activity
        self.phase = phase
        self.completed = completed
        self.total = total
        self.pages = pages
        self.tokenReset = tokenReset
    }

    /// `completed / total` clamped to 0...1, or nil when the total is unknown (1 when it is 0).
    public var fractionCompleted: Double? {
        guard let total else { return nil }
        guard total > 0 else { return 1 }
        return min(1, Double(completed) / Double(total))
    }

    /// A short line such as `pull TodoItem: 150/400 records, 3 pages`.
    public var description: String {
        let count = total.map { "\(completed)/\($0)" } ?? "\(completed)"
        switch activity {
        case .push: return "push: \(count) operations (\(phase))"
        case .pull(let table, _): return "pull \(table): \(count) records, \(pages) pages (\(phase))"
        }
    }
}
