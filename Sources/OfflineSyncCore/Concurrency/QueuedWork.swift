package import Dispatch

/// Work started on a dispatch queue while the calling thread goes on with its own, whose result the caller then
/// waits for without suspending: for a step that must end inside a synchronous one, such as an actor's turn or a
/// `TableSet` mutation. The queues it is used with never wait for Swift's shared threads, so waiting for one cannot
/// deadlock.
package final class QueuedWork<Value: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    /// Set on the queue before it signals `done`, read only after waiting for it.
    private var result: Value?

    /// Starts `work` on `queue`.
    package init(on queue: DispatchQueue, _ work: @escaping @Sendable () -> Value) {
        queue.async { [self] in
            result = work()
            done.signal()
        }
    }

    /// Blocks the calling thread until the work has run; returns its result.
    package func wait() -> Value {
        done.wait()
        guard let result else { preconditionFailure("QueuedWork signalled before its result was set") }
        return result
    }
}
