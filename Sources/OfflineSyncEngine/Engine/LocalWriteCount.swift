import OfflineSyncCore
import OfflineSyncStore
/// How many local writes (an insert, update or delete of a table, a batch of ``SyncContext/write(_:)``) the
/// contexts on the store have committed since this context was created, and the streams that follow the count.
///
/// ``SyncScheduler`` syncs after each local write. The queue's length cannot tell it: an edit collapsed into a
/// queued operation leaves it as it was, and a stream of statuses may skip a value between two others.
struct LocalWriteCount: Sendable {
    private(set) var count = 0
    private var streams = StreamFanOut<Int>()

    /// Counts one more committed local write and sends the count to every stream.
    mutating func increment() {
        count += 1
        streams.send(count)
    }

    /// Adds a stream, which gets each count from now on; returns its key.
    mutating func add(_ continuation: AsyncStream<Int>.Continuation) -> Int {
        streams.add(continuation)
    }

    /// Removes a stream.
    mutating func remove(_ key: Int) {
        streams.remove(key)
    }

    /// Ends every stream.
    func finishAll() {
        streams.finishAll()
    }
}

extension SyncContext {
    /// The count of committed local writes (``LocalWriteCount``) after each one from now on; a slow consumer gets the
    /// newest count. The stream ends when the iterating task is cancelled or the context goes away.
    nonisolated func localWriteUpdates() -> AsyncStream<Int> {
        let (stream, continuation) = AsyncStream<Int>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let registration = Task { await self.addLocalWriteObserver(continuation) }
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeLocalWriteObserver(await registration.value) }
        }
        return stream
    }

    private func addLocalWriteObserver(_ continuation: AsyncStream<Int>.Continuation) -> Int {
        localWrites.add(continuation)
    }

    private func removeLocalWriteObserver(_ key: Int) {
        localWrites.remove(key)
    }

    /// Counts a local write this context committed, in it and in the other contexts on the store.
    func localWriteCommitted() {
        localWrites.increment()
        for other in shared.contexts(besides: self) {
            Task { await other.localWriteOfAnotherContextCommitted() }
        }
    }

    private func localWriteOfAnotherContextCommitted() {
        localWrites.increment()
    }
}
