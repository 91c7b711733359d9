import Foundation
@testable import OfflineSyncCore
@testable import OfflineSyncStore

/// A data source over an in-memory one that holds back the first `apply` a test picks until the test lets it go
/// on, or until another `apply` arrives (which then goes after it): the test acts while that write is in flight,
/// without timing, and a write that would have overtaken it lands behind it.
actor HeldApplyDataSource: SyncContextDataSource {
    let base = InMemoryDataSource()
    /// Signalled once the picked `apply` is held.
    nonisolated let held: AsyncStream<Void>
    private let heldContinuation: AsyncStream<Void>.Continuation
    private var picks: (@Sendable ([StoreChange]) -> Bool)?
    private var heldApply: CheckedContinuation<Void, Never>?
    private var heldApplyRunning = false
    private var waitingForHeldApply: [CheckedContinuation<Void, Never>] = []

    init() {
        (held, heldContinuation) = AsyncStream.makeStream()
    }

    /// Holds the next `apply` whose changes `picks` chooses.
    func hold(where picks: @escaping @Sendable ([StoreChange]) -> Bool) {
        self.picks = picks
    }

    /// Lets the held `apply` go on (nothing when none is held).
    func release() {
        heldApply?.resume()
        heldApply = nil
    }

    func read(table: String, id: String) async throws -> JSONObject? {
        try await base.read(table: table, id: id)
    }

    func read(_ query: Query) async throws -> QueryResult {
        try await base.read(query)
    }

    func apply(_ changes: [StoreChange]) async throws {
        if let picks, picks(changes) {
            self.picks = nil
            heldApplyRunning = true
            await withCheckedContinuation { heldApply = $0; heldContinuation.yield() }
            defer { finishHeldApply() }
            try await base.apply(changes)
            return
        }
        if heldApplyRunning {
            release()
            await withCheckedContinuation { waitingForHeldApply.append($0) }
        }
        try await base.apply(changes)
    }

    private func finishHeldApply() {
        heldApplyRunning = false
        for waiter in waitingForHeldApply { waiter.resume() }
        waitingForHeldApply = []
    }
}
