import OfflineSyncCore
import OfflineSyncStore

/// Everything a context derives from its store and keeps in memory, in one value that follows the store's commits:
/// the operation index (whose count is the status's pending count), the next operation id, the operations a push
/// marked ahead, the versions the context's own pushes replaced, and the count of the store's writes it has seen.
///
/// A transaction's body reads the mirror as the last commit left it; what the body asks it to remember (marks made
/// ahead and taken, changes of the own-version history) is staged, and becomes part of it only in
/// ``didCommit(_:writes:)``, with the changes the transaction committed, as GRDB's `TransactionObserver` hears
/// `databaseDidCommit`. ``didRollBack()`` drops what was staged, so a refused commit leaves the mirror as it was. The
/// only other changes are loads of what it lacks from the store (``load(index:)``, ``load(nextOperationId:)``) and
/// ``forgetCaches()``, after which it loads again.
struct StoreMirror {
    /// The queued operation ids per item, loaded on first use (see ``OperationIndex``); nil when not loaded.
    private(set) var operationIndex: OperationIndex?
    /// The next operation id, loaded on first use; nil when not loaded.
    private(set) var nextOperationId: Int64?
    /// Operations the running push marked attempted ahead of their turn (empty outside a push).
    var markedAhead = MarkedAhead()
    /// The item versions this context's own pushes replaced.
    var ownVersions = OwnVersionHistory()
    /// ``SharedStoreState/writes`` as this context's last committed transaction left it; nil before the first.
    private(set) var writesSeen: Int?

    /// Starts a transaction's body: from now until its end, marks and own-version changes are staged.
    mutating func beginTransaction() {
        ownVersions.beginStaging()
    }

    /// Takes in the changes a transaction of this context committed, then what its body staged; `writes` is the
    /// store's write count that the transaction left.
    mutating func didCommit(_ changes: [StoreChange], writes: Int) {
        writesSeen = writes
        markedAhead.forget(touchedBy: changes)
        markedAhead.rememberStaged()
        ownVersions.apply(ownVersions.takeStaged())
        for change in changes where change.table == EngineTables.operations {
            // After a deleteAll the next id is loaded again (from the counter, when the change left it).
            if case .deleteAll = change { nextOperationId = nil }
            if let added = operationIndex?.follow(change) {
                if let next = nextOperationId, added >= next { nextOperationId = added + 1 }
                continue
            }
            // No index to tell the new operations: the next id is taken from the rows.
            operationIndex = nil
            if case .upsert(_, let rows) = change, let next = nextOperationId {
                nextOperationId = rows.reduce(next) { max($0, ($1["opId"]?.intValue ?? 0) + 1) }
            }
        }
    }

    /// Drops what the body of a transaction that did not commit staged: the mirror stays as the last commit left it.
    mutating func didRollBack() {
        markedAhead.discardStaged()
        _ = ownVersions.takeStaged()
    }

    /// Forgets the operation index, the next id and the marks, to load them again from the store: another context
    /// wrote to it, or the index found the store changed behind it.
    mutating func forgetCaches() {
        operationIndex = nil
        nextOperationId = nil
        markedAhead.removeAll()
    }

    /// Forgets the index alone, to load it again.
    mutating func forgetOperationIndex() {
        operationIndex = nil
    }

    /// Keeps `index`, just loaded from the store.
    mutating func load(index: OperationIndex) {
        operationIndex = index
    }

    /// Keeps `next`, just loaded from the store.
    mutating func load(nextOperationId next: Int64) {
        nextOperationId = next
    }

    /// Whether another context wrote to the store since this one's last committed transaction.
    func missed(writes: Int) -> Bool {
        writesSeen.map { $0 != writes } ?? false
    }
}
