public import OfflineSyncCore
public import OfflineSyncStore
/// Why a ``JournalDataSource`` could not open, read, write or maintain its store.
///
/// Validation problems with a batch are ``DataSourceError``s, as for every data source; this type covers the
/// files. Paths are absolute, offsets are byte offsets from the start of the named file.
///
/// A struct with a ``Code``, as GRDB's `DatabaseError`, so that a new kind of failure does not break a caller's
/// `switch`: match on ``code``, and read the properties that code fills.
public struct JournalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure an error is.
    public typealias Code = NamedCode<JournalError>

    /// What kind of failure this is.
    public let code: Code
    /// The file or directory concerned, when there is one.
    public let path: String?
    /// The byte offset in ``path`` where the damage starts, for the codes `corrupted` and `invalidSnapshot`.
    public let offset: Int64?
    /// The sequence number the damaged record should carry, for the code `corrupted` when it is known.
    public let sequence: Int64?
    /// The failed system call, for the code `io`.
    public let operation: String?
    /// The system's error number, for the codes `io` and `failed`.
    public let errno: Int32?
    /// What is wrong with the file, for the codes `corrupted`, `invalidManifest` and `invalidSnapshot`.
    public let reason: String?
    /// The invalid index's own error, for the code `invalidIndex`.
    public let indexError: DataSourceError?
    /// The identifier of the key the store was sealed with, for the codes `encrypted` and `wrongKey`.
    public let keyIdentifier: String?
    /// A sentence saying what went wrong and what to do.
    public let description: String

    private init(_ code: Code, path: String?, offset: Int64? = nil, sequence: Int64? = nil, operation: String? = nil,
                 errno: Int32? = nil, reason: String? = nil, indexError: DataSourceError? = nil, keyIdentifier: String? = nil,
                 _ description: String) {
        self.code = code
        self.path = path
        self.offset = offset
        self.sequence = sequence
        self.operation = operation
        self.errno = errno
        self.reason = reason
        self.indexError = indexError
        self.keyIdentifier = keyIdentifier
        self.description = description
    }

    /// Another ``JournalDataSource`` (in this process or another one) holds the store's lock.
    public static func locked(directory: String) -> JournalError {
        JournalError(.locked, path: directory,
                     "The journal store in \(directory) is open elsewhere (its lock is held by this or another process); close the other JournalDataSource first.")
    }

    /// A journal record that is damaged or out of sequence is followed by valid records: acknowledged data may
    /// be at stake, so the store refuses to open. `sequence` is the sequence number the record should carry.
    public static func corrupted(file: String, offset: Int64, sequence: Int64?, reason: String) -> JournalError {
        let record = sequence.map { "record \($0)" } ?? "a record"
        return JournalError(.corrupted, path: file, offset: offset, sequence: sequence, reason: reason,
                            "The journal \(file) is corrupted at byte offset \(offset) (\(record)): \(reason). Valid records follow it, so acknowledged data may be damaged; inspect the file, then run JournalDataSource.repair(directory:) to keep the valid prefix.")
    }

    /// The store was closed; later calls throw this.
    public static var closed: JournalError {
        JournalError(.closed, path: nil, "The journal store is closed; open a new JournalDataSource to use it.")
    }

    /// A system call failed with `errno`.
    public static func io(operation: String, path: String, errno: Int32) -> JournalError {
        JournalError(.io, path: path, operation: operation, errno: errno,
                     "\(operation) failed for \(path) with errno \(errno) (\(errnoName(errno))); fix the cause (disk space, permissions) and retry.")
    }

    /// A file was written by a newer, unknown format version.
    public static func unsupportedFormat(file: String, version: Int64) -> JournalError {
        JournalError(.unsupportedFormat, path: file,
                     "The file \(file) uses journal format version \(version), which this version of OfflineSync cannot read; open it with a newer OfflineSync.")
    }

    /// The manifest (`CURRENT`) is missing, unreadable or names files that do not fit together.
    public static func invalidManifest(file: String, reason: String) -> JournalError {
        JournalError(.invalidManifest, path: file, reason: reason,
                     "The manifest \(file) is invalid: \(reason). Check the store directory; JournalDataSource.verify(directory:) lists what is wrong.")
    }

    /// The snapshot fails its checksum or its structure.
    public static func invalidSnapshot(file: String, offset: Int64, reason: String) -> JournalError {
        JournalError(.invalidSnapshot, path: file, offset: offset, reason: reason,
                     "The snapshot \(file) is invalid at byte offset \(offset): \(reason). Restore it from a backup, or run JournalDataSource.repair(directory:) to move it aside.")
    }

    /// One `apply` would produce a journal record larger than ``JournalOptions/maximumRecordBytes``.
    public static func recordTooLarge(bytes: Int, limit: Int) -> JournalError {
        JournalError(.recordTooLarge, path: nil,
                     "The batch needs a \(bytes)-byte journal record, above the limit of \(limit) bytes; split it into several apply calls.")
    }

    /// A sync of the journal failed and the file could not be brought back to its last synced state, so the
    /// store no longer knows what is on disk. Every later call throws this until the store is opened again.
    public static func failed(file: String, errno: Int32) -> JournalError {
        JournalError(.failed, path: file, errno: errno,
                     "Syncing \(file) failed with errno \(errno) (\(errnoName(errno))) and the journal could not be restored, so its state on disk is unknown; close the store and open it again.")
    }

    /// A sync of the journal failed with `errno`. Records written earlier without a sync (``Durability/buffered``,
    /// ``JournalDataSource/applyDeferringDurability(_:)``) may be gone from the disk while the store still holds
    /// them (a failed `fsync` may drop what it could not write and report it once), so the store refuses every
    /// later write with this error (reads go on) until it is opened again; its code is `failed`.
    /// - Parameters:
    ///   - file: the journal whose sync failed.
    ///   - errno: the system's error number of the failed sync.
    public static func syncFailed(file: String, errno: Int32) -> JournalError {
        JournalError(.failed, path: file, operation: "sync", errno: errno,
                     "Syncing \(file) failed with errno \(errno) (\(errnoName(errno))): what the store wrote since its last successful sync may be lost from the disk although the store still holds it, so it refuses every write; reopen the store (close it and open it again), which then reads what the disk really holds.")
    }

    /// The directory holds no store (no `CURRENT` manifest).
    public static func notAStore(directory: String) -> JournalError {
        JournalError(.notAStore, path: directory, "\(directory) holds no journal store (no CURRENT manifest); check the path.")
    }

    /// One of ``JournalOptions/indexes`` is invalid; the store was not opened.
    public static func invalidIndex(_ error: DataSourceError) -> JournalError {
        JournalError(.invalidIndex, path: nil, indexError: error, error.description)
    }

    /// The store is encrypted and was opened (or checked) without a cipher. Nothing was changed.
    public static func encrypted(directory: String, keyIdentifier: String) -> JournalError {
        JournalError(.encrypted, path: directory, keyIdentifier: keyIdentifier,
                     "The journal store in \(directory) is encrypted with the key \"\(keyIdentifier)\"; pass a cipher holding that key in JournalOptions.cipher (the command-line tool: --key-file).")
    }

    /// The store is encrypted under another key than the cipher's: the manifest's key check does not open. Nothing
    /// was changed.
    public static func wrongKey(directory: String, keyIdentifier: String, given: String) -> JournalError {
        JournalError(.wrongKey, path: directory, keyIdentifier: keyIdentifier,
                     "The journal store in \(directory) is encrypted with the key \"\(keyIdentifier)\", and the cipher's key (\"\(given)\") does not open it; pass the key the store was encrypted with.")
    }

    /// The store is not encrypted but was opened with a cipher. Nothing was changed.
    public static func notEncrypted(directory: String) -> JournalError {
        JournalError(.notEncrypted, path: directory,
                     "The journal store in \(directory) is not encrypted, but a cipher was given; open it without JournalOptions.cipher, then call rekey(to:) to encrypt it.")
    }

    /// The store's cipher failed to seal; nothing was written.
    public static func sealingFailed(keyIdentifier: String, reason: String) -> JournalError {
        JournalError(.sealingFailed, path: nil, reason: reason, keyIdentifier: keyIdentifier,
                     "The cipher with the key \"\(keyIdentifier)\" failed to seal data: \(reason). Nothing was written; check the cipher.")
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

extension NamedCode where Domain == JournalError {
    /// Another ``JournalDataSource`` holds the store's lock.
    public static var locked: Self { Self(rawValue: "locked") }
    /// A damaged or out-of-sequence journal record is followed by valid records.
    public static var corrupted: Self { Self(rawValue: "corrupted") }
    /// The store was closed.
    public static var closed: Self { Self(rawValue: "closed") }
    /// A system call failed.
    public static var io: Self { Self(rawValue: "io") }
    /// A file was written by a newer, unknown format version.
    public static var unsupportedFormat: Self { Self(rawValue: "unsupportedFormat") }
    /// The manifest is missing, unreadable or inconsistent.
    public static var invalidManifest: Self { Self(rawValue: "invalidManifest") }
    /// The snapshot fails its checksum or its structure.
    public static var invalidSnapshot: Self { Self(rawValue: "invalidSnapshot") }
    /// One `apply` would produce a journal record above the limit.
    public static var recordTooLarge: Self { Self(rawValue: "recordTooLarge") }
    /// A failed sync left the journal in an unknown state until the store is reopened.
    public static var failed: Self { Self(rawValue: "failed") }
    /// The directory holds no store.
    public static var notAStore: Self { Self(rawValue: "notAStore") }
    /// One of the declared indexes is invalid.
    public static var invalidIndex: Self { Self(rawValue: "invalidIndex") }
    /// The store is encrypted and no cipher was given.
    public static var encrypted: Self { Self(rawValue: "encrypted") }
    /// The cipher's key is not the one the store is encrypted with.
    public static var wrongKey: Self { Self(rawValue: "wrongKey") }
    /// The store is not encrypted but a cipher was given.
    public static var notEncrypted: Self { Self(rawValue: "notEncrypted") }
    /// The store's cipher failed to seal.
    public static var sealingFailed: Self { Self(rawValue: "sealingFailed") }
}
