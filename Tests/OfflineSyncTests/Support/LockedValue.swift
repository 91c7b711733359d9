import Foundation

/// A value shared between tasks and threads of a test, behind a lock.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` on the value while holding the lock.
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&value) }
    }

    /// The value now.
    var current: Value { withLock { $0 } }
}
