#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `X-ZUMO-INSTALLATION-ID` a client sends with every request: one random UUID per installation.
///
/// ``current`` is made once per process. An app that wants the id stable across launches (as the reference SDKs
/// keep it) stores one, for example with ``make()`` on first launch, and passes it in
/// ``HTTPRemoteConfiguration/installationID``.
public enum InstallationID {
    /// An id made once per process, the default of ``HTTPRemoteConfiguration``.
    public static let current: String = make()

    /// A new random installation id (an upper-case UUID string).
    public static func make() -> String { UUID().uuidString }
}
