import OfflineSyncCore
import OfflineSyncStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SyncContext {
    /// The sync status now; its queue's length is the store's, whichever context on it wrote last.
    /// - Throws: a data-source error when the queue must be read to count it.
    public func status() async throws -> SyncStatus {
        try await countPendingOperations()
        return statusPublisher.status
    }

    /// The sync status now, then each change: local writes and push bookkeeping (the queue's length, also when
    /// another context on the same store changed it), pushes and pulls starting, advancing and ending. A slow consumer
    /// gets the newest status, never an older one after a newer. The stream ends when the iterating task is cancelled
    /// or the context goes away.
    public nonisolated func statusUpdates() -> AsyncStream<SyncStatus> {
        let (stream, continuation) = AsyncStream<SyncStatus>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let registration = Task { await self.addStatusObserver(continuation) }
        continuation.onTermination = { [weak self] _ in
            Task {
                guard let key = await registration.value else { return }
                await self?.removeStatusObserver(key)
            }
        }
        return stream
    }

    private func addStatusObserver(_ continuation: AsyncStream<SyncStatus>.Continuation) async -> Int? {
        // The queue's length comes from the operation index; a store that cannot be read leaves the last count.
        try? await countPendingOperations()
        return statusPublisher.add(continuation)
    }

    private func removeStatusObserver(_ key: Int) {
        statusPublisher.remove(key)
    }

    /// Counts the queue (the operation index's count) in a transaction, which shows the count in the status: one
    /// that finds another context on the store wrote since this one's last transaction first drops the index, and
    /// loads it again from the store. Alone on its store with its index loaded, the context's count is the store's
    /// last commit's: no transaction is taken (none waits behind a commit under way).
    func countPendingOperations() async throws {
        guard mirror.operationIndex == nil || !shared.contexts(besides: self).isEmpty else { return }
        try await transaction { _ in _ = try await loadedOperationIndex() }
    }

    /// A commit changed the queue while this context's index did not follow it (another context's commit, or one
    /// of this context's own after it dropped the index): counts it again, when a stream follows the status.
    func queueChanged() async {
        guard statusPublisher.isObserved else { return }
        try? await countPendingOperations()
    }

    /// Follows a progress report in the status.
    func followInStatus(_ progress: SyncProgress) {
        statusPublisher.follow(progress)
    }

    /// Runs a public push or pull and records how it ended in the status.
    func recordingOutcome<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            let value = try await body()
            statusPublisher.update {
                $0.lastSyncCompleted = Date()
                $0.lastErrorMessage = nil
            }
            return value
        } catch {
            statusPublisher.update { $0.lastErrorMessage = String(describing: error) }
            throw error
        }
    }
}
