import Foundation

/// Runs `work`, which blocks (a pipe read, a wait for a child process), on a thread of its own and returns its
/// result: blocking calls must never hold one of the few threads that Swift concurrency shares among all the tests
/// running at once, or those tests starve (and a test server that answers the child deadlocks with the test).
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: work()) }
    }
}
