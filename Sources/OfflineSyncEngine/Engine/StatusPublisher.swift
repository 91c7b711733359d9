import OfflineSyncCore
import OfflineSyncStore
/// The context's ``SyncStatus`` and the streams that follow it: each change is sent to every stream once, and an
/// unchanged status is not sent again. Each stream keeps only the newest status, so a slow consumer never sees an
/// older status after a newer one.
///
/// What runs is derived from the progress reports of what runs (``follow(_:)``): a pull of several tables reports
/// each table's start and end, and shows as pulling until the last of them has ended.
struct StatusPublisher: Sendable {
    private(set) var status = SyncStatus()
    private var streams = StreamFanOut<SyncStatus>()
    /// The pulls of tables that reported their start and not yet their end.
    private var runningPulls = 0

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

    /// Follows a progress report in the status: whether a push runs, whether a pull of any table runs, and the
    /// latest report of what runs (none once nothing runs).
    mutating func follow(_ progress: SyncProgress) {
        let running = progress.phase == .started || progress.phase == .advanced
        if case .pull = progress.activity {
            if progress.phase == .started { runningPulls += 1 } else if !running { runningPulls = max(0, runningPulls - 1) }
        }
        let pulling = runningPulls > 0
        update { status in
            switch progress.activity {
            case .push: status.isPushing = running
            case .pull: status.isPulling = pulling
            }
            if running {
                status.progress = progress
            } else if status.progress?.activity == progress.activity || !(status.isPushing || status.isPulling) {
                status.progress = nil
            }
        }
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
