import OfflineSyncCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One `URLSession` exchange with a deadline that holds whatever the session does: the caller gets the answer, a
/// `URLError(.timedOut)` at the deadline, or a `URLError(.cancelled)` when its task is cancelled, and never waits
/// for an exchange it gave up on. (A task group would wait for the abandoned exchange, which on Linux can stay
/// pending long after it was cancelled.)
///
/// The exchange is a completion-handler `URLSessionDataTask`, not `data(for:)` in a child task: cancelling a Swift
/// task that awaits `data(for:)` runs the session's cancellation (a `sync` onto its work queue) while the runtime
/// holds that task's status lock, and the work queue, finishing the same transfer, waits for that lock to resume
/// the task: a deadlock seen in the test suite when a deadline and an answer arrived together. The data task is
/// cancelled on a global queue, with no lock held.
///
/// The deadline is a dispatch timer, not a sleeping task: a task's sleep ends only when the cooperative pool has a
/// thread free, and a process whose pool is busy (its two threads on a two-core machine) would let a slow answer
/// arrive whole long after the deadline.
///
/// With `maximumBytes` the exchange is bounded: the answer's body is counted as it arrives by a
/// ``ResponseBodyLimit`` (a task delegate, so any session works) and the transfer is cancelled once it passes the
/// bound, with ``ResponseBodyLimit/Exceeded``; a body that arrived whole is checked again. A task delegate needs
/// `data(for:delegate:)`, whose cancellation is the deadlock above, so it runs in a task of its own that is never
/// cancelled: the deadline and the caller's cancellation end the transfer through the limit instead (at once once it
/// has started, else at its first answer). On Linux the answer is also delivered by the limit itself when the
/// transfer completes, from the session's queue, so that a busy cooperative pool (where that task resumes) cannot
/// hold an answer that arrived in time past the deadline.
enum DeadlineExchange {
    static func run(_ urlRequest: URLRequest, session: URLSession, timeout: Duration,
                    maximumBytes: Int? = nil) async throws -> (Data, URLResponse) {
        if let maximumBytes { return try await bounded(urlRequest, session: session, timeout: timeout, maximumBytes: maximumBytes) }
        let outcome = FirstOutcome()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                outcome.wait(with: continuation)
                let exchange = session.dataTask(with: urlRequest) { data, response, error in
                    if let error {
                        outcome.finish(.failure(error))
                    } else if let response {
                        outcome.finish(.success((data ?? Data(), response)))
                    } else {
                        outcome.finish(.failure(URLError(.badServerResponse)))
                    }
                }
                outcome.whenFinished { DispatchQueue.global().async { exchange.cancel() } }
                outcome.finish(.failure(URLError(.timedOut)), after: timeout)
                exchange.resume()
            }
        } onCancel: {
            outcome.finish(.failure(URLError(.cancelled)))
        }
    }
}

extension DeadlineExchange {
    /// ``run(_:session:timeout:maximumBytes:)`` with a bound on the body.
    private static func bounded(_ urlRequest: URLRequest, session: URLSession, timeout: Duration,
                                maximumBytes: Int) async throws -> (Data, URLResponse) {
        let outcome = FirstOutcome()
        let limit = ResponseBodyLimit(maximumBytes: maximumBytes, session: session)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                outcome.wait(with: continuation)
                outcome.whenFinished { limit.abandon() }
                outcome.finish(.failure(URLError(.timedOut)), after: timeout)
                #if canImport(FoundationNetworking)
                limit.whenComplete { data, response in outcome.finish(.success((data, response))) }
                #endif
                Task {
                    do {
                        let (data, response) = try await session.data(for: urlRequest, delegate: limit)
                        guard data.count <= maximumBytes else {
                            throw ResponseBodyLimit.Exceeded(maximumBytes: maximumBytes)
                        }
                        outcome.finish(.success((data, response)))
                    } catch {
                        outcome.finish(.failure(limit.exceeded ? ResponseBodyLimit.Exceeded(maximumBytes: maximumBytes) : error))
                    }
                }
            }
        } onCancel: {
            outcome.finish(.failure(URLError(.cancelled)))
        }
    }
}

/// The first outcome of a race, delivered once to the waiting continuation; later ones are dropped. Its state is
/// guarded by a lock, hence the unchecked `Sendable`.
private final class FirstOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
    private var early: Result<(Data, URLResponse), any Error>?
    private var isFinished = false
    private var cleanup: (@Sendable () -> Void)?
    private var deadline: (any DispatchSourceTimer)?

    /// Registers the continuation; resumes it at once if an outcome came first (a cancellation before the start).
    func wait(with continuation: CheckedContinuation<(Data, URLResponse), any Error>) {
        let ready: Result<(Data, URLResponse), any Error>? = lock.withLock {
            if let early { return early }
            self.continuation = continuation
            return nil
        }
        if let ready { continuation.resume(with: ready) }
    }

    /// Runs `body` once the race is decided (at once if it already is).
    func whenFinished(_ body: @escaping @Sendable () -> Void) {
        let now: Bool = lock.withLock {
            if isFinished { return true }
            cleanup = body
            return false
        }
        if now { body() }
    }

    /// Delivers `result` if it is the first outcome.
    func finish(_ result: Result<(Data, URLResponse), any Error>) {
        let (waiting, body): (CheckedContinuation<(Data, URLResponse), any Error>?, (@Sendable () -> Void)?) = lock.withLock {
            guard !isFinished else { return (nil, nil) }
            isFinished = true
            let waiting = continuation
            continuation = nil
            if waiting == nil { early = result }
            deadline?.cancel()
            deadline = nil
            defer { cleanup = nil }
            return (waiting, cleanup)
        }
        waiting?.resume(with: result)
        body?()
    }

    /// Delivers `result` after `delay` unless an outcome came first, on a dispatch timer that the first outcome
    /// cancels (a cancelled timer source is released at once, with what it holds).
    func finish(_ result: Result<(Data, URLResponse), any Error>, after delay: Duration) {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.setEventHandler { [weak self] in self?.finish(result) }
        let (seconds, attoseconds) = delay.components
        timer.schedule(deadline: .now() + Double(seconds) + Double(attoseconds) / 1e18)
        let armed: Bool = lock.withLock {
            guard !isFinished else { return false }
            deadline = timer
            return true
        }
        if !armed { timer.cancel() }
        // Resumed in every case: a source released while suspended is a fault of libdispatch's client.
        timer.resume()
    }
}
