import OfflineSyncCore
import OfflineSyncStore
/// Push outcome classification as pure values: what one remote answer means for the operation,
/// and what a conflict resolution turns into.
enum PushOutcome: Sendable {
    /// The server accepted the operation (or it counts as accepted); `serverItem` is its copy, when any.
    case succeeded(serverItem: JSONObject?)
    /// A 409/412 to hand to the conflict handler.
    case conflict(serverItem: JSONObject?, statusCode: Int)
    /// A 409/412 caused by this device's own earlier attempt, whose answer was lost: the server row holds what
    /// that attempt sent. Send the pending change again with the server row's version, without asking anyone.
    case landedEarlier(serverItem: JSONObject)
    /// The operation failed; record an error and go on with the next operation.
    case failed(statusCode: Int?, message: String, serverItem: JSONObject?)
    /// Stop the push; every unsent operation stays queued.
    case abort(PushError.Reason, RemoteError?)

    /// Classifies the answer to one sent operation.
    /// - Parameters:
    ///   - kind: what was sent (an insert resent after `.useClient` is an update).
    ///   - sent: the body that was sent (the snapshot for a delete).
    ///   - result: the server's copy on success (nil for a delete), or the thrown error.
    ///   - attempts: the queued operation, whose earlier attempts may explain a 409/412; nil when none count.
    static func classify(kind: TableOperation.Kind, sent: JSONObject?, result: Result<JSONObject?, any Error>,
                         attempts: TableOperation? = nil) -> PushOutcome {
        let error: any Error
        switch result {
        case .success(let item): return .succeeded(serverItem: item)
        case .failure(let failure): error = failure
        }
        if error is CancellationError { return .abort(.cancelled, nil) }
        guard let remoteError = error as? RemoteError else {
            return .failed(statusCode: nil, message: String(describing: error), serverItem: nil)
        }
        switch remoteError {
        case .unauthorized:
            return .abort(.unauthorized, remoteError)
        case .network:
            return .abort(.network, remoteError)
        case .notFound, .gone:
            if kind == .delete { return .succeeded(serverItem: nil) }
            return .failed(statusCode: remoteError.statusCode, message: remoteError.description, serverItem: nil)
        case .conflict(let serverItem), .preconditionFailed(let serverItem):
            if kind == .delete, SystemProperties.isDeleted(serverItem) { return .succeeded(serverItem: nil) }
            if kind != .delete, let serverItem, let sent, !SystemProperties.isDeleted(serverItem),
               SystemProperties.sameContent(serverItem, sent) {
                // An earlier attempt reached the server but its answer was lost: the server already holds
                // exactly what we sent.
                return .succeeded(serverItem: serverItem)
            }
            if let serverItem, attempts?.earlierAttemptLanded(in: serverItem) == true {
                return .landedEarlier(serverItem: serverItem)
            }
            return .conflict(serverItem: serverItem, statusCode: remoteError.statusCode ?? 412)
        case .server, .invalidResponse:
            return .failed(statusCode: remoteError.statusCode, message: remoteError.description, serverItem: nil)
        }
    }

    /// What a conflict resolution asks the push to do next.
    enum ConflictStep: Sendable {
        /// Record the conflict as an operation error; keep the operation.
        case record(message: String)
        /// Drop the operation and store the server's item locally (delete it locally when soft-deleted).
        case acceptServer(JSONObject)
        /// Send again: an update of `item` (carrying the server's version), or a delete with `version`.
        case resend(kind: TableOperation.Kind, item: JSONObject?, version: String?)
    }

    /// Turns the handler's resolution of a conflict into the next push step.
    static func step(for resolution: ConflictResolution, kind: TableOperation.Kind, itemId: String, sent: JSONObject?,
                     serverItem: JSONObject?, statusCode: Int) -> ConflictStep {
        let serverVersion = SystemProperties.version(of: serverItem)
        switch resolution {
        case .fail:
            let error: RemoteError = statusCode == 409 ? .conflict(serverItem: serverItem) : .preconditionFailed(serverItem: serverItem)
            return .record(message: error.description)
        case .useServer:
            guard let serverItem else {
                return .record(message: "The conflict was resolved with .useServer, but the server sent no item to use.")
            }
            return .acceptServer(serverItem)
        case .useClient:
            return resend(kind: kind, item: sent, serverVersion: serverVersion)
        case .useMerged(var merged):
            if let mergedId = merged["id"] {
                guard let id = mergedId.stringValue, ItemID.key(id) == ItemID.key(itemId) else {
                    return .record(message: "The conflict handler's merged item has the id \(mergedId.jsonString()), "
                        + "not the operation's item id \"\(itemId)\"; nothing was sent.")
                }
            } else {
                merged["id"] = .string(itemId)
            }
            return resend(kind: kind, item: merged, serverVersion: serverVersion)
        }
    }

    /// Sends `item` again over the server's version (a delete: with that version), as a resolution does.
    static func resend(kind: TableOperation.Kind, item: JSONObject?, serverVersion: String?) -> ConflictStep {
        if kind == .delete { return .resend(kind: .delete, item: item, version: serverVersion) }
        var body = SystemProperties.removingAll(from: item ?? [:])
        if let serverVersion { body["version"] = .string(serverVersion) }
        return .resend(kind: .update, item: body, version: serverVersion)
    }
}
