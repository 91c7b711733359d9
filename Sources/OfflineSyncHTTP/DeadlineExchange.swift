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
/// ``ResponseBodyLimit``, the data task's own delegate, which cancels the transfer once it passes the bound
/// (``ResponseBodyLimit/Exceeded``); a body that arrived whole is checked again. On Linux the task starts on the
/// caller's thread and its answer comes from the session's queue, so a busy cooperative pool (a whole test suite on
/// two cores) can delay neither the request's start nor its answer past the deadline: an exchange started from a
/// task of its own waited for a pool thread, at times longer than the deadline, and the request never left. On
/// Apple platforms, whose data tasks show their body to a delegate only without a completion handler, the exchange
/// is `data(for:delegate:)` in a task of its own that is never cancelled (its cancellation is the deadlock above):
/// the deadline and the caller's cancellation end the transfer through the limit instead.
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
                // Started here, on the caller's thread, and answered from the session's queue: neither waits for a
                // thread of the cooperative pool. (Linux's data tasks show their body to a task delegate also when
                // a completion handler takes the answer, as its `data(for:delegate:)` does.)
                let exchange = session.dataTask(with: urlRequest) { data, response, error in
                    outcome.finish(limit.outcome(data: data, response: response, error: error))
                }
                exchange.delegate = limit
                if limit.starting(exchange) { exchange.resume() } else { exchange.cancel() }
                #else
                // Apple's data tasks show their body to a delegate only without a completion handler: the exchange is
                // `data(for:delegate:)`, in a task of its own that is never cancelled.
                Task {
                    do {
                        let (data, response) = try await session.data(for: urlRequest, delegate: limit)
                        outcome.finish(limit.outcome(data: data, response: response, error: nil))
                    } catch {
                        outcome.finish(limit.outcome(data: nil, response: nil, error: error))
                    }
                }
                #endif
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
