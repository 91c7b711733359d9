/// Why a ``JournalDataSource`` could not open, read, write or maintain its store.
///
/// Validation problems with a batch are ``DataSourceError``s, as for every data source; this type covers the
/// files. Paths are absolute, offsets are byte offsets from the start of the named file.
public enum JournalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Another ``JournalDataSource`` (in this process or another one) holds the store's lock.
    case locked(directory: String)
    /// A journal record that is damaged or out of sequence is followed by valid records: acknowledged data may
    /// be at stake, so the store refuses to open. `sequence` is the sequence number the record should carry.
    case corrupted(file: String, offset: Int64, sequence: Int64?, reason: String)
    /// The store was closed; later calls throw this.
    case closed
    /// A system call failed with `errno`.
    case io(operation: String, path: String, errno: Int32)
    /// A file was written by a newer, unknown format version.
    case unsupportedFormat(file: String, version: Int64)
    /// The manifest (`CURRENT`) is missing, unreadable or names files that do not fit together.
    case invalidManifest(file: String, reason: String)
    /// The snapshot fails its checksum or its structure.
    case invalidSnapshot(file: String, offset: Int64, reason: String)
    /// One `apply` would produce a journal record larger than ``JournalOptions/maximumRecordBytes``.
    case recordTooLarge(bytes: Int, limit: Int)
    /// A sync of the journal failed and the file could not be brought back to its last synced state, so the
    /// store no longer knows what is on disk. Every later call throws this until the store is opened again.
    case failed(file: String, errno: Int32)
    /// The directory holds no store (no `CURRENT` manifest).
    case notAStore(directory: String)
    /// One of ``JournalOptions/indexes`` is invalid; the store was not opened.
    case invalidIndex(DataSourceError)

    /// A sentence saying what went wrong and what to do.
    public var description: String {
        switch self {
        case .locked(let directory):
            return "The journal store in \(directory) is open elsewhere (its lock is held by this or another process); close the other JournalDataSource first."
        case .corrupted(let file, let offset, let sequence, let reason):
            let record = sequence.map { "record \($0)" } ?? "a record"
            return "The journal \(file) is corrupted at byte offset \(offset) (\(record)): \(reason). Valid records follow it, so acknowledged data may be damaged; inspect the file, then run JournalDataSource.repair(directory:) to keep the valid prefix."
        case .closed:
            return "The journal store is closed; open a new JournalDataSource to use it."
        case .io(let operation, let path, let errno):
            return "\(operation) failed for \(path) with errno \(errno) (\(Self.errnoName(errno))); fix the cause (disk space, permissions) and retry."
        case .unsupportedFormat(let file, let version):
            return "The file \(file) uses journal format version \(version), which this version of OfflineSync cannot read; open it with a newer OfflineSync."
        case .invalidManifest(let file, let reason):
            return "The manifest \(file) is invalid: \(reason). Check the store directory; JournalDataSource.verify(directory:) lists what is wrong."
        case .invalidSnapshot(let file, let offset, let reason):
            return "The snapshot \(file) is invalid at byte offset \(offset): \(reason). Restore it from a backup, or run JournalDataSource.repair(directory:) to move it aside."
        case .recordTooLarge(let bytes, let limit):
            return "The batch needs a \(bytes)-byte journal record, above the limit of \(limit) bytes; split it into several apply calls."
        case .failed(let file, let errno):
            return "Syncing \(file) failed with errno \(errno) (\(Self.errnoName(errno))) and the journal could not be restored, so its state on disk is unknown; close the store and open it again."
        case .notAStore(let directory):
            return "\(directory) holds no journal store (no CURRENT manifest); check the path."
        case .invalidIndex(let error):
            return error.description
        }
    }

    static func errnoName(_ code: Int32) -> String {
        switch code {
        case 1: return "EPERM"
        case 2: return "ENOENT"
        case 5: return "EIO"
        case 9: return "EBADF"
        case 11, 35: return "EAGAIN"
        case 13: return "EACCES"
        case 17: return "EEXIST"
        case 28: return "ENOSPC"
        case 30: return "EROFS"
        case 122, 69: return "EDQUOT"
        default: return "errno \(code)"
        }
    }
}
