import OfflineSyncCore
import OfflineSyncStore
/// Where ``SyncScheduler`` learns whether the network is reachable: `NetworkPathConnectivity` on Apple
/// platforms, ``ManualConnectivity`` on Linux, in tests, or fed from an app's own signal.
public protocol ConnectivityMonitor: Sendable {
    /// Whether the network is reachable now, then each change. The stream ends when the iterating task is
    /// cancelled.
    func reachability() -> AsyncStream<Bool>
}
