public import OfflineSyncCore
import OfflineSyncStore
/// What a successful push did.
public struct PushResult: Sendable {
    /// How many operations the server accepted (or the engine resolved as success).
    public var pushed: Int

    /// Creates a result.
    public init(pushed: Int) { self.pushed = pushed }
}

/// A push that did not complete: some operations failed, or the push was aborted.
///
/// `errors` holds every per-operation error of this push, also when the push then aborted. Each stays
/// recorded in `__errors` until it is resolved or the next push starts; failed operations stay queued.
public struct PushError: Error, Sendable, CustomStringConvertible {
    /// Why the push did not complete.
    public enum Reason: Sendable {
        /// Every operation was tried; some failed (see ``PushError/errors``).
        case operationErrors
        /// The server could not be reached; the unsent operations stay queued.
        case network
        /// The server refused the credentials (401); the unsent operations stay queued.
        case unauthorized
        /// The task running the push was cancelled; the unsent operations stay queued.
        case cancelled
    }

    /// Why the push did not complete.
    public var reason: Reason
    /// The per-operation errors of this push, in queue order.
    public var errors: [TableOperationError]
    /// The error that aborted the push (network, 401), when there was one.
    public var underlying: RemoteError?

    /// Creates a push error.
    public init(reason: Reason, errors: [TableOperationError], underlying: RemoteError? = nil) {
        self.reason = reason
        self.errors = errors
        self.underlying = underlying
    }

    /// A sentence saying what happened and what to do.
    public var description: String {
        let count = errors.count
        switch reason {
        case .operationErrors:
            return "Push finished, but \(count) operation(s) failed; resolve each error with cancelAndDiscard, cancelAndUpdate or keepAndUpdate, or push again."
        case .network:
            return "Push stopped because the server could not be reached (\(underlying?.description ?? "network error")); \(count) operation(s) failed before that. Unsent operations stay queued: push again when online."
        case .unauthorized:
            return "Push stopped because the server refused the credentials (401); sign in again and push. \(count) operation(s) failed before that."
        case .cancelled:
            return "Push was cancelled; unsent operations stay queued. \(count) operation(s) failed before that."
        }
    }
}

/// The failure of one pushed operation. Resolve it with ``SyncContext/cancelAndDiscard(_:)``,
/// ``SyncContext/cancelAndUpdate(_:with:)`` or ``SyncContext/keepAndUpdate(_:with:)``.
public struct TableOperationError: Error, Sendable, CustomStringConvertible {
    /// The operation as it was when it failed (with its id and revision).
    public var operation: TableOperation
    /// The item that was sent (the snapshot for a delete).
    public var item: JSONObject?
    /// The server's row, for a 409 or 412 answer that carried it.
    public var serverItem: JSONObject?
    /// The HTTP status, when the server answered.
    public var statusCode: Int?
    /// What went wrong.
    public var message: String

    /// Creates an operation error.
    public init(operation: TableOperation, item: JSONObject?, serverItem: JSONObject?, statusCode: Int?, message: String) {
        self.operation = operation
        self.item = item
        self.serverItem = serverItem
        self.statusCode = statusCode
        self.message = message
    }

    /// A sentence naming the operation and the failure.
    public var description: String {
        let status = statusCode.map { " (HTTP \($0))" } ?? ""
        return "The \(operation.kind.rawValue) of item \"\(operation.itemId)\" in table \(operation.table) failed\(status): \(message)"
    }
}
