import OfflineSyncCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How ``HTTPRemote`` sends a write (any method but `GET`) so that a lost answer costs a retry, never a timeout.
///
/// On Linux (libcurl) a request whose reused connection closed before any answer byte is sent again on a new
/// connection without its `httpBody`, and both sides wait for a timeout. libcurl resends only what went on a reused
/// connection, so each write goes through a `URLSession` of its own, made like the remote's and invalidated after the
/// exchange, with `Connection: close`; a write that loses its answer then fails at once with
/// ``RemoteError/network(_:)``. Reads keep the remote's session and its kept-alive connections. Docs/Protocol.md,
/// section 5.1, says why and what else was tried.
enum FreshConnectionWrites {
    /// Sends `urlRequest` through `session`, or, for a write on Linux, through a session of its own made like it;
    /// with `maximumBytes`, an answer whose body passes it fails with ``ResponseBodyLimit/Exceeded``.
    static func exchange(_ urlRequest: URLRequest, session: URLSession, timeout: Duration,
                         maximumBytes: Int? = nil) async throws -> (Data, URLResponse) {
        #if canImport(FoundationNetworking)
        if let method = urlRequest.httpMethod, method != "GET" {
            var request = urlRequest
            request.setValue("close", forHTTPHeaderField: "Connection")
            let own = URLSession(configuration: session.configuration, delegate: session.delegate,
                                 delegateQueue: session.delegateQueue)
            defer { own.finishTasksAndInvalidate() }
            return try await DeadlineExchange.run(request, session: own, timeout: timeout, maximumBytes: maximumBytes)
        }
        #endif
        return try await DeadlineExchange.run(urlRequest, session: session, timeout: timeout, maximumBytes: maximumBytes)
    }
}
