import OfflineSyncCore
import OfflineSyncStore

/// A broken promise of a protocol implementation, found by a conformance check.
public struct ConformanceFailure: Error, Sendable, CustomStringConvertible {
    /// Which check failed.
    public var check: String
    /// What was expected and what happened.
    public var detail: String

    /// Creates a failure.
    public init(check: String, detail: String) {
        self.check = check
        self.detail = detail
    }

    /// A sentence naming the check and the difference.
    public var description: String { "Conformance check \"\(check)\" failed: \(detail)" }
}
