import OfflineSyncCore
import OfflineSyncStore
/// How durable ``JournalDataSource/apply(_:)`` makes a batch before it returns.
public enum Durability: Sendable, Hashable {
    /// `apply` returns after its record is written and synced to the disk (`fdatasync` on Linux, `F_FULLFSYNC`
    /// on Darwin): it survives a crash and a power loss. About one disk flush per `apply`.
    case always
    /// Group commit: applies that arrive while a write is in progress share the next write and sync, and each
    /// returns only after the sync that covers its own record. As durable as ``always``, far faster with many
    /// concurrent writers.
    case grouped
    /// `apply` returns once the record is handed to the operating system (no sync): it survives a crash of the
    /// process but not a power loss or a kernel crash.
    case buffered
}
