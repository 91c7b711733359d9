import OfflineSyncCore
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The `X-ZUMO-INSTALLATION-ID` a client sends with every request: one random UUID per installation.
///
/// ``current`` is made once per process. For an id that stays the same across launches, as the reference SDKs keep
/// it, load it with ``stored(in:)`` and pass it in ``HTTPRemoteConfiguration/installationID``:
/// ```swift
/// let id = try InstallationID.stored(in: applicationSupportDirectory)
/// let remote = HTTPRemote(baseURL: url, configuration: HTTPRemoteConfiguration(installationID: id))
/// ```
public enum InstallationID {
    /// An id made once per process, the default of ``HTTPRemoteConfiguration``.
    public static let current: String = make()

    /// The name of the file ``stored(in:)`` keeps the id in.
    public static let fileName = "offline-sync-installation-id"

    /// A new random installation id (an upper-case UUID string).
    public static func make() -> String { UUID().uuidString }

    /// The id kept in `directory` (file ``fileName``), made and written atomically on first use, or again when the
    /// file does not hold a usable id (1 to 128 printable ASCII characters without spaces, surrounding white space
    /// ignored).
    /// - Throws: the file system's error when the directory cannot be read or written.
    public static func stored(in directory: URL) throws -> String {
        let file = directory.appendingPathComponent(fileName)
        if let data = try? Data(contentsOf: file) {
            let text = RemoteResponse.trimmed(String(decoding: data, as: UTF8.self))
            if isUsable(text) { return text }
        }
        let id = make()
        try Data(id.utf8).write(to: file, options: .atomic)
        return id
    }

    /// Whether `text` can be sent as an installation id.
    static func isUsable(_ text: String) -> Bool {
        let utf8 = text.utf8
        return !utf8.isEmpty && utf8.count <= 128 && utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}
