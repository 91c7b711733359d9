/// The kind of an extensible error or event, compared and printed by its name: the `Code` of `QueryError`,
/// `DataSourceError`, `JournalError`, `SyncError`, `HTTPRemoteError` and `SyncDiagnostic` is each a `NamedCode` of
/// its own type, with its known kinds as static members. New kinds add members; a caller's `switch` over them keeps
/// compiling (it has a `default`), as with GRDB's `ResultCode`.
public struct NamedCode<Domain>: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The kind's name.
    public let rawValue: String

    /// The kind named `rawValue`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
}
