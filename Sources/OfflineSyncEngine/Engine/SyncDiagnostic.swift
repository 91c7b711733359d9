public import OfflineSyncCore
import OfflineSyncStore
/// Something a sync did that the caller did not ask for and would otherwise not see, such as a pulled record it
/// could not store. Follow them with ``SyncContext/diagnostics(bufferingNewest:)``, for a log or metrics.
///
/// A struct with a ``Code`` rather than an enum, so that new kinds of diagnostics do not break a `switch`.
public struct SyncDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// What kind of event a diagnostic reports.
    public typealias Code = NamedCode<SyncDiagnostic>

    /// What happened.
    public var code: Code
    /// The table concerned.
    public var table: String
    /// The item concerned, when there is one (as the server sent it, possibly not a valid id).
    public var itemId: String?
    /// A sentence saying what happened and why.
    public var message: String

    /// A diagnostic with the given fields.
    public init(code: Code, table: String, itemId: String?, message: String) {
        self.code = code
        self.table = table
        self.itemId = itemId
        self.message = message
    }

    public var description: String { "[\(code)] \(table)\(itemId.map { "/\($0)" } ?? ""): \(message)" }
}

extension SyncContext {
    /// A stream of the diagnostics of this context from now on; it ends when the consuming task stops iterating.
    /// With `bufferingNewest` set, a slow consumer sees only the latest ones.
    public func diagnostics(bufferingNewest limit: Int? = nil) -> AsyncStream<SyncDiagnostic> {
        let (stream, continuation, key) = diagnosticStreams.addStream(bufferingNewest: limit)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeDiagnosticStream(key) }
        }
        return stream
    }

    private func removeDiagnosticStream(_ key: Int) {
        diagnosticStreams.remove(key)
    }

    func report(_ diagnostic: SyncDiagnostic) {
        diagnosticStreams.send(diagnostic)
    }
}

extension NamedCode where Domain == SyncDiagnostic {
    /// A pulled record was left out because no store could hold it (an invalid id, content nested too deep, a
    /// number JSON cannot hold); the rest of its page was stored.
    public static var skippedPulledRecord: Self { Self(rawValue: "skippedPulledRecord") }
}
