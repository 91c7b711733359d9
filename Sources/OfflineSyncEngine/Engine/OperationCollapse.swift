import OfflineSyncCore
import OfflineSyncStore
/// The collapse table of the operation queue as a pure value: what a new local action does
/// to the latest pending operation of the same item.
///
/// | pending (not in flight) | new insert | new update | new delete |
/// |---|---|---|---|
/// | none | add new | add new | add new |
/// | insert, not attempted | not allowed | keep | remove |
/// | insert, attempted | not allowed | keep | to delete |
/// | update | not allowed | keep | to delete |
/// | delete | not allowed | not allowed | not allowed |
///
/// An attempted operation (``TableOperation/attempted``) may already have reached the server, so a delete never
/// removes it: the server may hold the item. An operation that is being pushed is not collapsed into: keep,
/// remove and to-delete become add-new, and the two are folded together (``folding(_:into:)``) when the one in
/// flight fails.
enum OperationCollapse: Sendable, Hashable {
    /// Queue a new operation with the next id.
    case addNew
    /// Leave the pending operation as it is (its revision is bumped: the item it sends changed).
    case keep
    /// Remove the pending operation and its errors: nothing reaches the server.
    case remove
    /// Turn the pending operation into a delete carrying the caller's snapshot, at the same position.
    case toDelete
    /// Refuse the action; nothing changes.
    case notAllowed

    /// Decides the collapse of `action` against the latest pending operation of the item.
    /// - Parameters:
    ///   - pending: the kind of the latest pending operation, or nil when there is none.
    ///   - attempted: whether that operation may already have reached the server.
    ///   - inFlight: whether that operation is being pushed right now.
    ///   - action: the new local action.
    static func decide(pending: TableOperation.Kind?, attempted: Bool, inFlight: Bool,
                       action: TableOperation.Kind) -> OperationCollapse {
        guard let pending else { return .addNew }
        let result: OperationCollapse
        switch (pending, action) {
        case (.delete, _), (_, .insert): return .notAllowed
        case (.insert, .update), (.update, .update): result = .keep
        case (.insert, .delete): result = attempted ? .toDelete : .remove
        case (.update, .delete): result = .toDelete
        }
        return inFlight ? .addNew : result
    }

    /// What folding a later operation of an item into an earlier one comes to.
    enum Fold: Sendable, Hashable {
        /// One operation at the earlier one's position.
        case merged(TableOperation)
        /// Both go: an insert that never left, then a delete.
        case bothRemoved
        /// They stay as they are (nothing can follow a delete).
        case separate
    }

    /// What `later`, queued for the same item while `earlier` was in flight, and `earlier` come to once `earlier`
    /// failed: the rules of a collapse, at `earlier`'s position, keeping what both attempted.
    static func folding(_ later: TableOperation, into earlier: TableOperation) -> Fold {
        var folded = earlier
        switch decide(pending: earlier.kind, attempted: earlier.attempted, inFlight: false, action: later.kind) {
        case .remove:
            return .bothRemoved
        case .keep:
            folded.item = later.item
        case .toDelete:
            folded.kind = .delete
            folded.item = later.item
        case .addNew, .notAllowed:
            return .separate
        }
        folded.revision += 1
        folded.inheritAttempts(of: later)
        return .merged(folded)
    }
}
