public import OfflineSyncCore
import OfflineSyncStore
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
    /// The base: the server's copy of the item that the local change started from (as last pulled, or as the server
    /// last answered this device); nil for an insert, or for an operation queued before bases were kept.
    public var baseItem: JSONObject?

    /// The HTTP status of the answer: 409 or 412.
    public var statusCode: Int

    /// Creates a conflict value.
    public init(operation: TableOperation, localItem: JSONObject?, serverItem: JSONObject?, baseItem: JSONObject? = nil,
                statusCode: Int = 412) {
        self.operation = operation
        self.localItem = localItem
        self.serverItem = serverItem
        self.baseItem = baseItem
        self.statusCode = statusCode
    }
}

extension SyncConflict {
    /// The base copy as an app's model; nil when there is no base.
    /// - Throws: ``SyncError`` (model coding) when the copy does not fit the model.
    public func base<Model: Decodable>(as type: Model.Type) throws -> Model? {
        try baseItem.map { try ModelCoding(table: operation.table).model(type, from: $0) }
    }

    /// The local copy as an app's model; nil when there is none.
    /// - Throws: ``SyncError`` (model coding) when the copy does not fit the model.
    public func local<Model: Decodable>(as type: Model.Type) throws -> Model? {
        try localItem.map { try ModelCoding(table: operation.table).model(type, from: $0) }
    }

    /// The server's copy as an app's model; nil when the server sent none.
    /// - Throws: ``SyncError`` (model coding) when the copy does not fit the model.
    public func server<Model: Decodable>(as type: Model.Type) throws -> Model? {
        try serverItem.map { try ModelCoding(table: operation.table).model(type, from: $0) }
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
