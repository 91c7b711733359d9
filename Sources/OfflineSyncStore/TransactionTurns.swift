import OfflineSyncCore
/// Who may write to a store next: the bookkeeping a store actor keeps to run
/// ``SyncContextDataSource/transaction(isolation:_:)`` isolated from its other writers.
///
/// One transaction holds the store at a time, in the order they asked. A plain `apply` never holds it, but waits
/// while a transaction does, so nothing is applied between a transaction's reads and its changes. Call every method
/// from the store's own isolation.
package struct TransactionTurns: Sendable {
    private enum Waiter {
        case transaction(CheckedContinuation<Void, Never>)
        case apply(CheckedContinuation<Void, Never>)
    }

    /// Whether a transaction holds the store.
    package private(set) var isHeld = false
    private var waiters: [Waiter] = []

    /// No transaction holds the store and nobody waits.
    package init() {}

    /// How many transactions and applies wait for the store (lets tests see that a writer waits, without timing).
    package var waitingCount: Int { waiters.count }

    /// Makes the transaction the holder now, or returns the continuation's place to wait in.
    /// - Returns: true when the caller holds the store; false when it must wait (``enqueueTransaction(_:)``).
    package mutating func tryHold() -> Bool {
        guard !isHeld, waiters.isEmpty else { return false }
        isHeld = true
        return true
    }

    /// Queues a transaction that waits for the store; it holds it once resumed.
    package mutating func enqueueTransaction(_ continuation: CheckedContinuation<Void, Never>) {
        waiters.append(.transaction(continuation))
    }

    /// Queues an apply that waits until no transaction holds the store.
    package mutating func enqueueApply(_ continuation: CheckedContinuation<Void, Never>) {
        waiters.append(.apply(continuation))
    }

    /// Ends the holder's turn: resumes the applies queued before the next transaction, then hands the store to it.
    package mutating func release() {
        isHeld = false
        while !waiters.isEmpty {
            switch waiters.removeFirst() {
            case .apply(let continuation):
                continuation.resume()
            case .transaction(let continuation):
                isHeld = true
                continuation.resume()
                return
            }
        }
    }
}
