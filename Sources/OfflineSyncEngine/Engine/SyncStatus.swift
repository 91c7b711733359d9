import OfflineSyncCore
import OfflineSyncStore
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What an app's status bar shows about sync: what is queued, what runs, how the last sync ended.
///
/// ```swift
/// for await status in context.statusUpdates() {
///     badge.count = status.pendingOperations
///     spinner.isAnimating = status.isPushing || status.isPulling
///     banner.text = status.lastErrorMessage
/// }
/// ```
public struct SyncStatus: Sendable, Hashable {
    /// How many operations are queued, in every table.
    public var pendingOperations: Int
    /// Whether a push runs (also the push a pull makes first).
    public var isPushing: Bool
    /// Whether a pull is paging through the server's records.
    public var isPulling: Bool
    /// The end of the last push or pull that finished without error.
    public var lastSyncCompleted: Date?
    /// The error of the last push or pull that failed; nil after a success.
    public var lastErrorMessage: String?
    /// The latest progress report of the running push or pull; nil when none runs.
    public var progress: SyncProgress?

    /// Creates a status value.
    public init(pendingOperations: Int = 0, isPushing: Bool = false, isPulling: Bool = false,
                lastSyncCompleted: Date? = nil, lastErrorMessage: String? = nil, progress: SyncProgress? = nil) {
        self.pendingOperations = pendingOperations
        self.isPushing = isPushing
        self.isPulling = isPulling
        self.lastSyncCompleted = lastSyncCompleted
        self.lastErrorMessage = lastErrorMessage
        self.progress = progress
    }
}
