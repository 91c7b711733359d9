import Foundation

/// Lets server handlers tell whether their requests were served at the same time: each ``arrive(within:)`` waits
/// until `parties` handlers have arrived, and says whether they all did in time.
final class Rendezvous: Sendable {
    private let parties: Int
    private let arrived = LockedValue(0)
    private let allArrived = DispatchSemaphore(value: 0)

    init(parties: Int) {
        self.parties = parties
    }

    /// Whether all parties arrived within `seconds` of this one (the last one returns at once).
    func arrive(within seconds: Double) -> Bool {
        let count = arrived.withLock { count in
            count += 1
            return count
        }
        if count == parties {
            for _ in 1..<parties { allArrived.signal() }
            return true
        }
        return allArrived.wait(timeout: .now() + seconds) == .success
    }
}
