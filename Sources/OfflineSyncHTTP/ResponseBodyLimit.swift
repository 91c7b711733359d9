import OfflineSyncCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The task delegate of a bounded exchange (``DeadlineExchange``): counts an answer's body as it arrives and
/// cancels the transfer once it passes `maximumBytes` (or announces more in `Content-Length`), so an answer that
/// does not end never fills the memory; and ends the transfer once the exchange was given up (deadline,
/// cancellation).
///
/// A task delegate takes the session delegate's place for the methods it implements (on Linux, for all of them), so
/// redirects and authentication challenges are handed to the session's delegate as they would be without it: a
/// ``SameOriginRedirectPolicy`` keeps refusing redirects to another origin, and a delegate that pins certificates
/// keeps deciding. Its state is guarded by a lock, hence the unchecked `Sendable`.
final class ResponseBodyLimit: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// The error a bounded exchange ends with when the body passed the limit.
    struct Exceeded: Error, Sendable {
        /// The limit that was passed.
        var maximumBytes: Int
    }

    private let maximumBytes: Int
    private let sessionDelegate: (any URLSessionTaskDelegate)?
    private let lock = NSLock()
    private var received = 0
    private var task: URLSessionTask?
    private var abandoned = false
    private var passed = false

    /// A limit of `maximumBytes` for one exchange through `session`.
    init(maximumBytes: Int, session: URLSession) {
        self.maximumBytes = max(0, maximumBytes)
        sessionDelegate = session.delegate as? any URLSessionTaskDelegate
    }

    /// Whether the body passed the limit (and the transfer was cancelled for it).
    var exceeded: Bool { lock.withLock { passed } }

    /// Ends the transfer: at once when it has started, else at its first answer.
    func abandon() {
        let running: URLSessionTask? = lock.withLock {
            abandoned = true
            return task
        }
        if let running { DispatchQueue.global().async { running.cancel() } }
    }

    /// Records the data task this limit is the delegate of, before it starts; false when the exchange was given up
    /// already (a caller cancelled before the start), and the task must not start.
    func starting(_ task: URLSessionTask) -> Bool {
        lock.withLock {
            self.task = task
            return !abandoned
        }
    }

    /// How the exchange ended, given how the transfer did: ``Exceeded`` when the body passed the limit (the transfer
    /// was cancelled for it, or a body that arrived whole is too long), else the transfer's error or answer.
    func outcome(data: Data?, response: URLResponse?, error: (any Error)?) -> Result<(Data, URLResponse), any Error> {
        if exceeded || (data?.count ?? 0) > maximumBytes { return .failure(Exceeded(maximumBytes: maximumBytes)) }
        if let error { return .failure(error) }
        guard let response else { return .failure(URLError(.badServerResponse)) }
        return .success((data ?? Data(), response))
    }

    /// Records `task` and tells whether it must end (abandoned, or past the limit with `count` more bytes).
    private func mustEnd(_ task: URLSessionTask, adding count: Int = 0, announced: Int64 = -1) -> Bool {
        lock.withLock {
            self.task = task
            received += count
            if received > maximumBytes || announced > Int64(maximumBytes) { passed = true }
            return passed || abandoned
        }
    }

    func urlSession(_ session: URLSession, didCreateTask task: URLSessionTask) {
        if mustEnd(task) { task.cancel() }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        completionHandler(mustEnd(dataTask, announced: response.expectedContentLength) ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if mustEnd(dataTask, adding: data.count) {
            dataTask.cancel()
            return
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        guard let sessionDelegate else { return completionHandler(request) }
        #if canImport(FoundationNetworking)
        sessionDelegate.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request,
                                   completionHandler: completionHandler)
        #else
        sessionDelegate.urlSession?(session, task: task, willPerformHTTPRedirection: response, newRequest: request,
                                    completionHandler: completionHandler) ?? completionHandler(request)
        #endif
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        // The session's own answer (certificate pinning, client certificates), as without a task delegate.
        guard let sessionDelegate else { return completionHandler(.performDefaultHandling, nil) }
        #if canImport(FoundationNetworking)
        sessionDelegate.urlSession(session, task: task, didReceive: challenge, completionHandler: completionHandler)
        #else
        sessionDelegate.urlSession?(session, task: task, didReceive: challenge, completionHandler: completionHandler)
            ?? completionHandler(.performDefaultHandling, nil)
        #endif
    }
}
