/// The version of the OfflineSync library, as the command-line tool and the HTTP `User-Agent` report it.
public enum OfflineSyncVersion {
    /// The semantic version string.
    public static let current = "0.1.0"
}
