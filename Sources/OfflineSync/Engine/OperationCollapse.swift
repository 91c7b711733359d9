/// The collapse table of the operation queue (model-system.md §4) as a pure value: what a new local action does
/// to the latest pending operation of the same item.
///
/// | pending (not in flight) | new insert | new update | new delete |
/// |---|---|---|---|
/// | none | add new | add new | add new |
/// | insert | not allowed | keep | remove |
/// | update | not allowed | keep | to delete |
/// | delete | not allowed | not allowed | not allowed |
///
/// An operation that is being pushed is not collapsed into: keep, remove and to-delete become add-new.
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
    ///   - inFlight: whether that operation is being pushed right now.
    ///   - action: the new local action.
    static func decide(pending: TableOperation.Kind?, inFlight: Bool, action: TableOperation.Kind) -> OperationCollapse {
        guard let pending else { return .addNew }
        let result: OperationCollapse
        switch (pending, action) {
        case (.delete, _), (_, .insert): return .notAllowed
        case (.insert, .update), (.update, .update): result = .keep
        case (.insert, .delete): result = .remove
        case (.update, .delete): result = .toDelete
        }
        return inFlight ? .addNew : result
    }
}
