import Foundation

/// A gate that blocks the threads waiting at it until it is opened, and stays open: a stalled test server's handler
/// waits here for every request it takes, however many the client sends, so the server can always stop.
final class ReleaseGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = false

    /// Blocks until the gate is open.
    func wait() {
        condition.withLock { while !isOpen { condition.wait() } }
    }

    /// Opens the gate for every waiter, now and later.
    func open() {
        condition.withLock {
            isOpen = true
            condition.broadcast()
        }
    }
}
