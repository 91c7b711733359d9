import OfflineSyncCore
import OfflineSyncStore
/// What the queue remembers of the attempts to send an operation (``TableOperation/attempted`` and
/// ``TableOperation/sentContents``), and what that tells about a 409 or 412 answer.
extension TableOperation {
    /// The content an attempt sends for `item`: the item without its system properties.
    static func content(of item: JSONObject) -> JSONObject {
        SystemProperties.removingAll(from: item)
    }

    /// Whether the operation must be marked (and stored) before a request that sends `body` leaves: it is not
    /// attempted yet, or `body`'s content is not among what it already sent.
    func needsMark(sending body: JSONObject?) -> Bool {
        guard attempted else { return true }
        guard let body else { return false }
        return !sentContents.contains { SystemProperties.sameContent($0, body) }
    }

    /// Marks the operation attempted, with `body`'s content (when given) last among the sent contents.
    mutating func markAttempted(sending body: JSONObject?) {
        attempted = true
        if let body { remember([Self.content(of: body)]) }
    }

    /// Takes over what `other`, an operation on the same item folded into this one, attempted.
    mutating func inheritAttempts(of other: TableOperation) {
        attempted = attempted || other.attempted
        remember(other.sentContents)
    }

    /// Whether `serverRow` holds what an earlier attempt of this operation sent, or (for a delete) the content
    /// of the item being deleted: the server's version then moved because of this device, and the pending change
    /// can be sent again with the server's version. Only an attempted operation can have such an earlier attempt.
    func earlierAttemptLanded(in serverRow: JSONObject?) -> Bool {
        guard attempted, let serverRow, !SystemProperties.isDeleted(serverRow) else { return false }
        if kind == .delete, let item, SystemProperties.sameContent(serverRow, item) { return true }
        return sentContents.contains { SystemProperties.sameContent($0, serverRow) }
    }

    /// Appends `contents` that are not remembered yet, keeping the newest ``maximumSentContents``.
    private mutating func remember(_ contents: [JSONObject]) {
        for content in contents {
            sentContents.removeAll { SystemProperties.sameContent($0, content) }
            sentContents.append(content)
        }
        if sentContents.count > Self.maximumSentContents {
            sentContents.removeFirst(sentContents.count - Self.maximumSentContents)
        }
    }
}
