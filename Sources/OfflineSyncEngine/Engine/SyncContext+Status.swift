import OfflineSyncCore
import OfflineSyncStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SyncContext {
    /// The sync status now.
    /// - Throws: a data-source error when the queue must be read to count it.
    public func status() async throws -> SyncStatus {
        try await countPendingOperations()
        return statusPublisher.status
    }

    /// The sync status now, then each change: local writes and push bookkeeping (the queue's length), pushes and
    /// pulls starting, advancing and ending. A slow consumer gets the newest status, never an older one after a
    /// newer. The stream ends when the iterating task is cancelled or the context goes away.
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

    /// Loads the operation index when it is not loaded (its count is the queue's length), in a transaction.
    private func countPendingOperations() async throws {
        guard mirror.operationIndex == nil else { return }
        try await transaction { _ in _ = try await loadedOperationIndex() }
    }

    /// Follows a progress report in the status.
    func followInStatus(_ progress: SyncProgress) {
        statusPublisher.update { status in
            let running = progress.phase == .started || progress.phase == .advanced
            switch progress.activity {
            case .push: status.isPushing = running
            case .pull: status.isPulling = running
            }
            status.progress = running ? progress : nil
        }
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
