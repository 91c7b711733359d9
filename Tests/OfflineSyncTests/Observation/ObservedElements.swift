@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Consumes an observation stream in a task of its own and keeps every element, for tests to wait on.
actor ObservedElements<Element: Sendable> {
    private(set) var elements: [Element] = []
    private(set) var failure: (any Error)?
    private var consumer: Task<Void, Never>?
    private var waiters: [Int: (condition: @Sendable ([Element]) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = [:]
    private var nextWaiter = 0
    /// When the last element arrived: a waiter times out only after this long a silence, so that a machine slowed by
    /// load (elements still arriving) is told from a lost final element or a hang (nothing arriving).
    private var lastArrival = ContinuousClock.now

    /// Starts consuming `stream`.
    init(_ stream: AsyncThrowingStream<Element, any Error>) {
        Task { await self.start(stream) }
    }

    private func start(_ stream: AsyncThrowingStream<Element, any Error>) {
        consumer = Task {
            do {
                for try await element in stream {
                    self.append(element)
                }
            } catch {
                self.fail(error)
            }
        }
    }

    private func append(_ element: Element) {
        elements.append(element)
        lastArrival = .now
        resumeWaiters()
    }

    private func fail(_ error: any Error) {
        failure = error
        resumeWaiters(finished: true)
    }

    private func resumeWaiters(finished: Bool = false) {
        for (key, waiter) in waiters {
            let met = waiter.condition(elements)
            guard met || finished else { continue }
            waiters.removeValue(forKey: key)
            waiter.continuation.resume(returning: met)
        }
    }

    /// Whether the elements come to satisfy `condition` before `seconds` pass with no element arriving (a stream
    /// still delivering is waited for, however slow the machine).
    func waitUntil(seconds: Double = 30, _ condition: @escaping @Sendable ([Element]) -> Bool) async -> Bool {
        if condition(elements) { return true }
        if failure != nil { return false }
        let key = nextWaiter
        nextWaiter += 1
        return await withCheckedContinuation { continuation in
            waiters[key] = (condition, continuation)
            Task { await self.timeOut(key, afterSilence: .seconds(seconds)) }
        }
    }

    /// Resumes the waiter `key` with false once `silence` passed since the last element arrived (or it started),
    /// counting only time in which the process ran: a sleep that ends more than a second late means the suite held
    /// every thread of the pool meanwhile (the producers too), so the silence starts again from the wake-up.
    private func timeOut(_ key: Int, afterSilence silence: Duration) async {
        var quietSince = ContinuousClock.now
        var deadline = quietSince + silence
        while waiters[key] != nil {
            try? await Task.sleep(until: deadline)
            if Task.isCancelled { break }
            let now = ContinuousClock.now
            if now - deadline > .seconds(1) { quietSince = now }
            let next = max(lastArrival, quietSince) + silence
            if next <= now { break }
            deadline = next
        }
        waiters.removeValue(forKey: key)?.continuation.resume(returning: false)
    }

    /// Stops consuming (the iterating task is cancelled).
    func cancel() {
        consumer?.cancel()
    }
}
