import OfflineSyncCore
import OfflineSyncStore
/// One observed query of a context: where its results go, the last one delivered, and whether it must be
/// evaluated again.
struct QueryObserver: Sendable {
    let query: Query
    let continuation: AsyncThrowingStream<QueryResult, any Error>.Continuation
    /// The last result delivered; nil before the first.
    var last: QueryResult? {
        didSet { shownKeys = last.map(ObservationScope.shownKeys(of:)) ?? [] }
    }
    /// The keys of the items of ``last``.
    private(set) var shownKeys: Set<String> = []
    /// A committed change may have altered the result since the last evaluation started.
    var isDirty = true
    /// An evaluation task runs for this observer.
    var isEvaluating = false
}
