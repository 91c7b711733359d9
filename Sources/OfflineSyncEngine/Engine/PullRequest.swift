public import OfflineSyncCore
import OfflineSyncStore
/// One query of a pull of several at once (``SyncContext/pull(_:settings:)``).
///
/// ```swift
/// try await context.pull([
///     PullRequest(Query(table: "TodoList"), queryId: "lists"),
///     PullRequest(Query(table: "TodoItem", filter: Field("complete") == false), queryId: "open-items"),
/// ])
/// ```
public struct PullRequest: Sendable, Hashable {
    /// What to pull; its table is the table pulled into.
    public var query: Query
    /// The incremental pull's id (its delta token's key), or nil for a full pull.
    public var queryId: String?

    /// Creates a request of `query`, incremental when `queryId` is given.
    public init(_ query: Query, queryId: String? = nil) {
        self.query = query
        self.queryId = queryId
    }
}
