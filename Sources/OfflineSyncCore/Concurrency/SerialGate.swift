/// A first-in first-out asynchronous lock: the engine's way to run its read-decide-apply steps and its sync
/// actions one at a time across the `await`s where actor reentrancy would otherwise interleave them.
package actor SerialGate {
    private var isLocked = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// A gate that nobody holds.
    package init() {}

    /// How many callers are queued behind the holder (lets tests prove that a caller waits, without timing).
    var waitingCount: Int { waiters.count }

    /// Waits until the gate is free, then holds it.
    package func lock() async {
        if isLocked {
            await withCheckedContinuation { waiters.append($0) }
        } else {
            isLocked = true
        }
    }

    /// Hands the gate to the next waiter, or frees it.
    package func unlock() {
        if waiters.isEmpty {
            isLocked = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}
