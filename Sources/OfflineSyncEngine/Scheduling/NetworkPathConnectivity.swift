import OfflineSyncCore
import OfflineSyncStore
#if canImport(Network)
import Network
import Dispatch

/// Connectivity from `NWPathMonitor` (Apple platforms): reachable while the current path is satisfied.
public struct NetworkPathConnectivity: ConnectivityMonitor {
    /// Creates a monitor of every interface.
    public init() {}

    /// Whether the network is reachable now, then each change; each stream runs its own `NWPathMonitor`.
    public func reachability() -> AsyncStream<Bool> {
        AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let monitor = NWPathMonitor()
            monitor.pathUpdateHandler = { path in continuation.yield(path.status == .satisfied) }
            continuation.onTermination = { _ in monitor.cancel() }
            monitor.start(queue: DispatchQueue(label: "OfflineSync.NetworkPathConnectivity"))
        }
    }
}
#endif
