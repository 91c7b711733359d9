/// Decides what happens when the server answers a pushed operation with a conflict: 409 (the id exists, on
/// insert) or 412 (the version changed, on update or delete).
///
/// ```swift
/// struct ServerWins: ConflictHandler {
///     func resolve(_ conflict: SyncConflict) async throws -> ConflictResolution { .useServer }
/// }
/// let context = SyncContext(dataSource: store, remote: remote, conflictHandler: ServerWins())
/// ```
/// Without a handler every conflict is `.fail`: it becomes a ``TableOperationError`` of the ``PushError`` and
/// the operation stays queued for ``SyncContext/cancelAndDiscard(_:)`` and its siblings.
///
/// The handler runs during the push: it may read and write local tables, but must not call `push`, `pull` or
/// `purge` of the same context, which wait for the running push to finish.
public protocol ConflictHandler: Sendable {
    /// Called during push for a 409/412 answer. The default (no handler) is .fail.
    func resolve(_ conflict: SyncConflict) async throws -> ConflictResolution
}

/// A conflict the server reported for one pushed operation.
public struct SyncConflict: Sendable {
    /// The operation that was sent.
    public var operation: TableOperation
    /// The local item as it was sent (the snapshot for a delete).
    public var localItem: JSONObject?
    /// The server's row, when the server sent it.
    public var serverItem: JSONObject?

    /// The HTTP status of the answer: 409 or 412.
    public var statusCode: Int

    /// Creates a conflict value.
    public init(operation: TableOperation, localItem: JSONObject?, serverItem: JSONObject?, statusCode: Int = 412) {
        self.operation = operation
        self.localItem = localItem
        self.serverItem = serverItem
        self.statusCode = statusCode
    }
}

/// What to do with a conflict.
public enum ConflictResolution: Sendable {
    /// Record a TableOperationError, keep the operation.
    case fail
    /// Drop the operation, store the server's item locally.
    case useServer
    /// Resend the local item with the server's version (as an update, also after a 409 on insert).
    case useClient
    /// Resend this item with the server's version (as an update, also after a 409 on insert).
    case useMerged(JSONObject)
}
