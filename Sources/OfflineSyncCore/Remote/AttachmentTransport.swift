#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Moves attachment files between the device and wherever the app keeps them, by attachment id.
///
/// OfflineSync ships `HTTPAttachmentTransport` (PUT, GET and DELETE on a URL the app builds per id) and, in
/// `OfflineSyncTesting`, `InMemoryAttachmentTransport`. An `AttachmentQueue` calls it; an implementation throws
/// ``AttachmentTransportError/notFound(id:)`` when the server has no file for an id, and any other error for a failed
/// transfer (the queue then retries it on its next sync).
public protocol AttachmentTransport: Sendable {
    /// Stores the file's bytes under `id`. Idempotent: uploading the same id again replaces the file with the same bytes.
    func upload(_ file: URL, id: String) async throws
    /// Writes the file stored under `id` to `destination` (a temporary file the queue then moves into place).
    func download(id: String, to destination: URL) async throws
    /// Removes the file stored under `id`; removing a file that is not there succeeds.
    func delete(id: String) async throws
}

/// What an ``AttachmentTransport`` reports about a file, beside its own failures.
public enum AttachmentTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server has no file under this id.
    case notFound(id: String)

    /// What went wrong, in words.
    public var description: String {
        switch self {
        case .notFound(let id): "The server has no attachment with the id \"\(id)\"."
        }
    }
}
