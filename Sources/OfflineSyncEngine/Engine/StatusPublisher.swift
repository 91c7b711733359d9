import OfflineSyncCore
import OfflineSyncStore
/// The context's ``SyncStatus`` and the streams that follow it: each change is sent to every stream once, and an
/// unchanged status is not sent again. Each stream keeps only the newest status, so a slow consumer never sees an
/// older status after a newer one.
struct StatusPublisher: Sendable {
    private(set) var status = SyncStatus()
    private var streams = StreamFanOut<SyncStatus>()

    /// Whether any stream follows the status.
    var isObserved: Bool { !streams.isEmpty }

    /// Changes the status and sends it when it changed.
    mutating func update(_ change: (inout SyncStatus) -> Void) {
        var next = status
        change(&next)
        guard next != status else { return }
        status = next
        streams.send(next)
    }

    /// Adds a stream, which gets the current status first; returns its key.
    mutating func add(_ continuation: AsyncStream<SyncStatus>.Continuation) -> Int {
        streams.add(continuation, first: status)
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
