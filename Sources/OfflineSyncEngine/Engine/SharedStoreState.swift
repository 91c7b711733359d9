import OfflineSyncCore
import OfflineSyncStore
import Dispatch

/// What every ``SyncContext`` on one store shares, so that a second context on a store shares the first's state
/// instead of working against it: the sync gate (push, pull, purge, erase and migrate of all of them run one at a
/// time), the operations in flight, a count of the transactions that wrote (a context that sees it moved since
/// its own last transaction drops what it caches of the store before it reads it again), and the contexts
/// themselves, so that each one's writes reach the others' observers.
///
/// `inFlight` and `writes` are read and written only inside a transaction of the store
/// (``SyncContextDataSource/transaction(isolation:_:)``), whose isolation from other writers makes those accesses
/// exclusive and ordered: that is what makes the class `Sendable`.
///
/// A store that is a value type has no identity to share by: each context on it gets a state of its own.
final class SharedStoreState: @unchecked Sendable {
    /// Serialises push, pull, purge, erase and migrate of every context on the store.
    let syncGate = SerialGate()
    /// Operations being sent right now (memory only: a crash forgets them, which is right).
    var inFlight: Set<Int64> = []
    /// How many transactions of the contexts on the store staged changes.
    var writes = 0

    private struct WeakContext {
        weak var context: SyncContext?
    }

    /// The contexts on the store while they live; guarded by `contextsQueue`.
    private var contexts: [WeakContext] = []

    /// Adds `context` to the contexts on the store.
    func register(_ context: SyncContext) {
        Self.contextsQueue.sync {
            contexts.removeAll { $0.context == nil }
            contexts.append(WeakContext(context: context))
        }
    }

    /// The other live contexts on the store.
    func contexts(besides context: SyncContext) -> [SyncContext] {
        Self.contextsQueue.sync {
            contexts.count < 2 ? [] : contexts.compactMap(\.context).filter { $0 !== context }
        }
    }

    private static let states = StoreObjectRegistry<SharedStoreState>()
    private static let contextsQueue = DispatchQueue(label: "OfflineSync.SharedStoreState.contexts")

    /// The state of `store`, shared with every other context on the same store object while it lives.
    static func of(_ store: any SyncContextDataSource) -> SharedStoreState {
        states.value(for: store) { SharedStoreState() } ?? SharedStoreState()
    }
}
