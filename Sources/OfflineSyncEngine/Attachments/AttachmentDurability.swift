import OfflineSyncStore

/// How ``AttachmentFiles`` makes what it writes durable: by default the calls the journal store uses
/// (`FileDurability`: `fdatasync` on Linux, `F_FULLFSYNC` on Darwin, a directory synced with its errors checked); a
/// test passes calls that fail, to see what a failed sync does.
struct AttachmentDurability: Sendable {
    /// Makes the data of an open file durable.
    var syncData: @Sendable (_ descriptor: Int32) throws(FileDurability.Failure) -> Void
    /// Makes the entries created, renamed or removed in a directory durable.
    var syncDirectory: @Sendable (_ path: String) throws(FileDurability.Failure) -> Void

    /// The store's durability calls.
    static let system = AttachmentDurability(syncData: FileDurability.syncData(of:),
                                             syncDirectory: FileDurability.syncDirectory(_:))
}
