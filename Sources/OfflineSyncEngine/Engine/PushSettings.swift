import OfflineSyncCore
import OfflineSyncStore
/// How a push sends the queue: how many operations it keeps in flight at once.
///
/// ```swift
/// try await context.push(settings: PushSettings(maximumConcurrentRequests: 8))   // a slow network: 8 at once
/// ```
///
/// Whatever the setting, the operations of one item go one after another in queue order, and an item that refers
/// to another is sent only after the other's insert succeeded (see ``TableRelation``).
public struct PushSettings: Sendable, Hashable {
    /// Operations in flight at once; 1 sends one at a time, in queue order (the first round's behaviour).
    /// Values below 1 count as 1. A push sends its first requests one at a time and keeps this many in flight once
    /// three requests in a row took longer than 1 ms each, as over any network: against a back end in the same process, requests in flight
    /// would only add thread switches.
    public var maximumConcurrentRequests: Int

    /// Creates settings; `push()` and `push(tables:)` use `PushSettings()`.
    public init(maximumConcurrentRequests: Int = 4) {
        self.maximumConcurrentRequests = maximumConcurrentRequests
    }
}
