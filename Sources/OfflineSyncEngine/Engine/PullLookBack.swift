import OfflineSyncCore
import OfflineSyncStore
/// The stretch behind a stored delta token that an incremental pull reads again (``PullSettings/lookBack``), for rows
/// a server committed after rows it had stamped later.
///
/// The pull starts at `updatedAt ge (token − lookBack)` instead of just after the token. Until it reaches the token's
/// record (or any later instant) its records are inside the stretch: the ones the store already holds in the same
/// version are not stored again, and the delta token is not saved, so the token never moves back and a pull stopped
/// inside the stretch reads it again next time. From the first record past it on, the pull goes on as usual.
struct PullLookBack: Sendable, Hashable {
    /// The stored token the stretch ends at.
    let token: PullKey
    /// Where the pull starts: every record at or after `token.updatedAt − lookBack` (never before 1970).
    let start: PullKey

    /// The stretch behind `token`, or nil when `lookBack` is not positive or the token is the start of time.
    init?(token: PullKey?, lookBack: Duration) {
        let milliseconds = Self.milliseconds(lookBack)
        guard let token, milliseconds > 0, token.updatedAt > 0 else { return nil }
        self.token = token
        self.start = PullKey(updatedAt: max(0, token.updatedAt - milliseconds), id: nil)
    }

    /// Whether a pulled record with `key` is past the stretch: after the token's instant, or the token's own record
    /// (for a token without an id, any record at its instant). A record at the token's instant with another id may be
    /// either side of it in the server's order, which the pull never judges (``PullKey``), so it counts as inside.
    func isPast(_ key: PullKey) -> Bool {
        guard key.updatedAt <= token.updatedAt else { return true }
        guard key.updatedAt == token.updatedAt else { return false }
        return token.id == nil || key.id == token.id
    }

    /// `duration` in whole milliseconds, rounded up (a look-back never reads less than asked), saturating.
    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 || seconds > 0 else { return 0 }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return .max }
        let fraction = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return whole.addingReportingOverflow(fraction).overflow ? .max : whole + fraction
    }
}
