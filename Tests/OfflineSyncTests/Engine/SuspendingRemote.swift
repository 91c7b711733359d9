import OfflineSync
import OfflineSyncTesting

/// Wraps a remote and parks one chosen call until the test resumes it, to interleave deterministically
/// (no sleeps): `suspendNext(.update)`, start the push, `await waitUntilSuspended()`, act, `resume()`.
actor SuspendingRemote: SyncRemote {
    /// Where the call parks.
    enum Point: Sendable { case beforeServer, afterServer }

    let base: any SyncRemote
    /// What a parked call of a cancelled task does once resumed.
    enum WhenCancelled: String, Sendable {
        /// Goes on as if nothing happened (a transport that ignores cancellation).
        case answers
        /// Throws `CancellationError`, as `HTTPRemote` does: parked before the server, the request never
        /// arrives; after it, the server applied it but the answer is lost.
        case throwsCancellationError
        /// Throws `RemoteError.network`, as a transport that reports a cancelled request as a failure.
        case throwsNetworkError
    }

    let whenCancelled: WhenCancelled
    private var armed: [(method: RemoteMethod, point: Point, skipping: Int)] = []
    private var parked: CheckedContinuation<Void, Never>?
    private var arrivalWaiters: [CheckedContinuation<Void, Never>] = []
    private var isParked = false

    init(_ base: any SyncRemote, whenCancelled: WhenCancelled = .answers) {
        self.base = base
        self.whenCancelled = whenCancelled
    }

    /// Parks the next call of `method` at `point`, after letting `skipping` such calls through.
    func suspendNext(_ method: RemoteMethod, at point: Point = .afterServer, skipping: Int = 0) {
        armed.append((method, point, skipping))
    }

    /// Returns once a call is parked.
    func waitUntilSuspended() async {
        if isParked { return }
        await withCheckedContinuation { arrivalWaiters.append($0) }
    }

    /// Lets the parked call continue.
    func resume() {
        isParked = false
        parked?.resume()
        parked = nil
    }

    private func parkIfArmed(_ method: RemoteMethod, _ point: Point) async throws {
        guard let index = armed.firstIndex(where: { $0.method == method && $0.point == point }) else { return }
        if armed[index].skipping > 0 {
            armed[index].skipping -= 1
            return
        }
        armed.remove(at: index)
        await withCheckedContinuation { continuation in
            parked = continuation
            isParked = true
            for waiter in arrivalWaiters { waiter.resume() }
            arrivalWaiters.removeAll()
        }
        guard Task.isCancelled else { return }
        switch whenCancelled {
        case .answers: return
        case .throwsCancellationError: throw CancellationError()
        case .throwsNetworkError: throw RemoteError.network("The request was cancelled.")
        }
    }

    func insert(_ item: JSONObject, table: String) async throws -> JSONObject {
        try await parkIfArmed(.insert, .beforeServer)
        let result = try await base.insert(item, table: table)
        try await parkIfArmed(.insert, .afterServer)
        return result
    }

    func update(_ item: JSONObject, table: String) async throws -> JSONObject {
        try await parkIfArmed(.update, .beforeServer)
        let result = try await base.update(item, table: table)
        try await parkIfArmed(.update, .afterServer)
        return result
    }

    func delete(id: String, version: String?, table: String) async throws {
        try await parkIfArmed(.delete, .beforeServer)
        try await base.delete(id: id, version: version, table: table)
        try await parkIfArmed(.delete, .afterServer)
    }

    func read(_ query: Query) async throws -> RemotePage {
        try await parkIfArmed(.read, .beforeServer)
        let page = try await base.read(query)
        try await parkIfArmed(.read, .afterServer)
        return page
    }
}
