import OfflineSyncCore
import OfflineSyncStore
extension SyncContext {
    /// How many queued operations one mark stores as attempted once a push has sent `sent`: the one about to be
    /// sent and the ones after it, so that a push pays one durable `apply` per run of operations, not one per
    /// operation. Runs start at 64 and grow with what the push has sent, up to 1,024, so a long push pays a few
    /// dozen syncs for its marks. Marking an operation that is not sent after all is harmless: it only makes a later
    /// delete of its item reach the server.
    static func attemptMarkRun(afterSending sent: Int) -> Int {
        min(max(64, sent), 1_024)
    }

    /// The changes that mark `operation` attempted with `body`, and the not yet attempted operations among
    /// `upcoming` (ids in queue order, as many as the run holds) with their current content, as `transaction` sees
    /// them (an operation its staged changes removed is left out); and those operations as marked, with their local
    /// items, for ``MarkedAhead`` once the changes are committed.
    func markingAttempted(_ operation: inout TableOperation, sending body: JSONObject?, upcoming: ArraySlice<Int64>,
                          in transaction: StoreTransaction) async throws -> (changes: [StoreChange], ahead: [MarkedAhead.Entry]) {
        operation.markAttempted(sending: body)
        var changes = [queue.saving(operation)]
        var ahead: [MarkedAhead.Entry] = []
        for id in upcoming where !shared.inFlight.contains(id) {
            guard var next = try await queue.operation(id: id, in: transaction), !next.attempted else { continue }
            let local = next.kind == .delete ? nil : try await transaction.read(table: next.table, id: next.itemId)
            next.markAttempted(sending: local)
            changes.append(queue.saving(next))
            ahead.append(MarkedAhead.Entry(operation: next, item: local))
        }
        return (changes, ahead)
    }

    /// Records a resend that a conflict resolution asks for, in one transaction before it leaves; returns the operation
    /// as stored, its ``TableOperation/item`` the local item it now stands for.
    ///
    /// The rule that recognises a lost answer ("the server holds what an earlier attempt sent, so send the pending
    /// change again over its version") holds only while everything the operation sent is an ancestor of the local
    /// item. A merged item is not, until it becomes the local item: so when no local write took the item since the
    /// operation was prepared, the resolution's content becomes the local item (with the server's version it was
    /// resolved against) and is remembered among the operation's sent contents. Otherwise the local item is left as
    /// the user wrote it and the content is not remembered: a lost answer to it then comes back as a conflict, for
    /// the handler to decide again with the three copies, instead of being sent over. In the first case the server's
    /// copy the resolution was made against (`serverItem`) becomes the operation's base.
    func recordingResend(of operation: TableOperation, sending body: JSONObject,
                         resolving serverItem: JSONObject?) async throws -> TableOperation {
        try await transaction { transaction in
            var stored = try await queue.operation(id: operation.id) ?? operation
            stored.item = operation.item
            let local = try await dataSource.read(table: operation.table, id: operation.itemId)
            let queued = try await loadedOperationIndex().ids(table: operation.table, itemId: operation.itemId)
            guard queued == [operation.id], let local, let sent = operation.item, local == sent else { return stored }
            var resolved = body
            for name in ["createdAt", "updatedAt"] where resolved[name] == nil { resolved[name] = local[name] }
            if resolved != local { transaction.stage([.upsert(table: operation.table, items: [resolved])]) }
            stored.item = resolved
            let before = stored
            if let serverItem, !SystemProperties.isDeleted(serverItem) { stored.base = serverItem }
            if stored.needsMark(sending: body) { stored.markAttempted(sending: body) }
            if stored != before { transaction.stage([queue.saving(stored)]) }
            return stored
        }
    }

    /// What folding the operations queued behind an operation of the same item comes to.
    struct FoldedOperations: Sendable {
        /// The operation at the earlier position, or nil when none is left.
        var operation: TableOperation?
        /// The changes that store the fold (empty when nothing was queued behind it).
        var changes: [StoreChange]
    }

    /// Folds the operations queued for `operation`'s item behind it (while it was in flight) into it, by the
    /// collapse rules (``OperationCollapse/folding(_:into:)``), so that no operation is left that can never be
    /// sent. Call inside a transaction, and stage ``FoldedOperations/changes`` in it.
    func foldingLater(into operation: TableOperation) async throws -> FoldedOperations {
        let later = try await loadedOperationIndex().ids(table: operation.table, itemId: operation.itemId)
            .filter { $0 > operation.id }
        var result = FoldedOperations(operation: operation, changes: [])
        for id in later {
            guard let next = try await queue.operation(id: id), let current = result.operation else { continue }
            switch OperationCollapse.folding(next, into: current) {
            case .merged(let merged):
                result.operation = merged
                result.changes += queue.removing(next.id)
            case .bothRemoved:
                result.operation = nil
                result.changes += queue.removing(next.id) + queue.removing(current.id)
            case .separate:
                return result
            }
        }
        if let folded = result.operation, folded != operation { result.changes.append(queue.saving(folded)) }
        return result
    }
}
