extension SyncContext {
    /// Pushes until every change queued before the call has been acknowledged (before a sign-out, at the end of a
    /// shift): returns at once when nothing is queued. A change queued during the wait is not waited for (though a
    /// push may send it).
    ///
    /// A push that cannot reach the server is tried again, after 0.1 s doubling up to 5 s, until `timeout` has
    /// passed since the call; a push in progress then is cancelled (its operations stay queued).
    /// - Throws: at once, the ``PushError`` of a push that needs the app: some operations failed (resolve them, for
    ///   instance with ``retry(_:)``) or the server refused the credentials; after `timeout`, the ``PushError`` with
    ///   reason `.network` of the last attempt (one without an underlying error when no attempt ended); a data-source
    ///   error as the store throws it; `CancellationError` when the calling task is cancelled.
    public func waitUntilPushed(timeout: Duration) async throws {
        guard let last = try await queue.operations().last?.id else { return }
        let attempts = LastNetworkFailure()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.pushUntilAcknowledged(through: last, noting: attempts) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw await attempts.error ?? PushError(reason: .network, errors: [])
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Pushes until no operation up to id `last` is queued; a network failure is noted in `attempts` and tried again
    /// after a backoff, any other failure thrown.
    private func pushUntilAcknowledged(through last: Int64, noting attempts: LastNetworkFailure) async throws {
        var delay = Duration.milliseconds(100)
        while try await queue.operations().first.map({ $0.id <= last }) ?? false {
            do {
                try await push()
            } catch let error as PushError where error.reason == .network {
                await attempts.note(error)
                try await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            } catch let error as PushError where error.reason == .cancelled {
                throw CancellationError()
            }
        }
    }
}

/// The network failure of the last push ``SyncContext/waitUntilPushed(timeout:)`` tried, which it throws when its time
/// is up.
private actor LastNetworkFailure {
    private(set) var error: PushError?

    func note(_ error: PushError) {
        self.error = error
    }
}
