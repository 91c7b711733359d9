/// How many requests may be in flight at once (a counting semaphore), shared by the queries of one pull: a request
/// takes a permit before it leaves and gives it back when its answer (or failure) arrived.
package actor RequestPermits {
    private var available: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Creates `count` permits (at least one).
    package init(_ count: Int) {
        available = max(1, count)
    }

    /// Takes a permit, waiting for one to be given back when none is left.
    package func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Gives a permit back, to the longest waiting request first.
    package func release() {
        if waiting.isEmpty {
            available += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
