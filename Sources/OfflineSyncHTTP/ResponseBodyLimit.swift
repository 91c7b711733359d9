import OfflineSyncCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The task delegate of a bounded exchange (``DeadlineExchange``): counts an answer's body as it arrives and cancels
/// the transfer once it passes `maximumBytes` (or announces more in `Content-Length`), so an answer that does not
/// end never fills the memory; and ends the transfer once the exchange was given up (deadline, cancellation).
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
    #if canImport(FoundationNetworking)
    private var body = Data()
    private var response: URLResponse?
    private var completion: (@Sendable (Data, URLResponse) -> Void)?
    private var delivered = false
    #endif

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
            #if canImport(FoundationNetworking)
            if delivered { return nil }
            #endif
            return task
        }
        if let running { DispatchQueue.global().async { running.cancel() } }
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

    #if canImport(FoundationNetworking)
    /// Calls `body` with the answer as soon as its whole body is in (as many bytes as its `Content-Length`), from the
    /// session's delegate queue: the answer is then delivered even while the cooperative pool, where
    /// `data(for:delegate:)` resumes, is busy (a deadline would otherwise pass for an answer already in, and a write
    /// be sent again). An answer without a length is delivered by `data(for:delegate:)` alone. Linux only, where a
    /// task delegate is known to see every part of the body.
    func whenComplete(_ body: @escaping @Sendable (Data, URLResponse) -> Void) {
        lock.withLock { completion = body }
    }

    /// The answer to deliver when the body is whole (and marks it delivered, so that ``abandon()`` leaves the
    /// transfer to end by itself and its connection to be kept); call holding the lock.
    private func completeAnswer() -> (@Sendable (Data, URLResponse) -> Void, Data, URLResponse)? {
        guard !passed, !abandoned, !delivered, let response, let completion,
              response.expectedContentLength == Int64(body.count) else { return nil }
        delivered = true
        return (completion, body, response)
    }
    #endif

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        #if canImport(FoundationNetworking)
        lock.withLock {
            self.response = response
            body = Data()
        }
        #endif
        let ends = mustEnd(dataTask, announced: response.expectedContentLength)
        completionHandler(ends ? .cancel : .allow)
        #if canImport(FoundationNetworking)
        if !ends, let (deliver, data, response) = lock.withLock({ completeAnswer() }) { deliver(data, response) }
        #endif
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if mustEnd(dataTask, adding: data.count) {
            dataTask.cancel()
            return
        }
        #if canImport(FoundationNetworking)
        let answer = lock.withLock { () -> (@Sendable (Data, URLResponse) -> Void, Data, URLResponse)? in
            body.append(data)
            return completeAnswer()
        }
        if let (deliver, data, response) = answer { deliver(data, response) }
        #endif
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
