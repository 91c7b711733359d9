import OfflineSyncCore
import OfflineSyncStore
/// Connectivity driven by hand: call ``setReachable(_:)`` when the network comes and goes (Linux, tests, or an
/// app that has its own reachability signal). Starts reachable unless told otherwise.
public actor ManualConnectivity: ConnectivityMonitor {
    private var isReachable: Bool
    private var streams = StreamFanOut<Bool>()

    /// Creates a monitor that reports `reachable` until told otherwise.
    public init(reachable: Bool = true) {
        self.isReachable = reachable
    }

    /// Reports a change of connectivity to every stream (nothing when it did not change).
    public func setReachable(_ reachable: Bool) {
        guard reachable != isReachable else { return }
        isReachable = reachable
        streams.send(reachable)
    }

    /// Whether the network is reachable now, then each change.
    public nonisolated func reachability() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream<Bool>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let registration = Task { await self.add(continuation) }
        continuation.onTermination = { [weak self] _ in
            Task { await self?.remove(await registration.value) }
        }
        return stream
    }

    private func add(_ continuation: AsyncStream<Bool>.Continuation) -> Int {
        streams.add(continuation, first: isReachable)
    }

    private func remove(_ key: Int) {
        streams.remove(key)
    }
}
