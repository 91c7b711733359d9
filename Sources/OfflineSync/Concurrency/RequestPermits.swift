/// How many requests may be in flight at once (a counting semaphore), shared by the queries of one pull: a request
/// takes a permit before it leaves and gives it back when its answer (or failure) arrived.
actor RequestPermits {
    private var available: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Creates `count` permits (at least one).
    init(_ count: Int) {
        available = max(1, count)
    }

    /// Takes a permit, waiting for one to be given back when none is left.
    func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Gives a permit back, to the longest waiting request first.
    func release() {
        if waiting.isEmpty {
            available += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
