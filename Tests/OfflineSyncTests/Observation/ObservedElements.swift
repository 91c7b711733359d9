@testable import OfflineSync

/// Consumes an observation stream in a task of its own and keeps every element, for tests to wait on.
actor ObservedElements<Element: Sendable> {
    private(set) var elements: [Element] = []
    private(set) var failure: (any Error)?
    private var consumer: Task<Void, Never>?
    private var waiters: [Int: (condition: @Sendable ([Element]) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = [:]
    private var nextWaiter = 0

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

    /// Whether the elements come to satisfy `condition` within `seconds`.
    func waitUntil(seconds: Double = 10, _ condition: @escaping @Sendable ([Element]) -> Bool) async -> Bool {
        if condition(elements) { return true }
        if failure != nil { return false }
        let key = nextWaiter
        nextWaiter += 1
        return await withCheckedContinuation { continuation in
            waiters[key] = (condition, continuation)
            Task {
                try? await Task.sleep(for: .seconds(seconds))
                self.timeOut(key)
            }
        }
    }

    private func timeOut(_ key: Int) {
        waiters.removeValue(forKey: key)?.continuation.resume(returning: false)
    }

    /// Stops consuming (the iterating task is cancelled).
    func cancel() {
        consumer?.cancel()
    }
}
