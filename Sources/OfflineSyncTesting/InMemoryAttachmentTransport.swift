public import OfflineSyncCore
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An in-process file store for the tests of code that uses an `AttachmentQueue`: it keeps uploaded files in memory,
/// logs every call, and fails the transfers of the ids a test names.
///
/// ```swift
/// let transport = InMemoryAttachmentTransport()
/// let queue = try await AttachmentQueue(context: context, directory: folder, fields: fields, transport: transport)
/// await transport.setFailing(["photo-1"])          // its uploads and downloads now throw
/// ```
public actor InMemoryAttachmentTransport: AttachmentTransport {
    /// One call the transport received.
    public enum Request: Sendable, Hashable {
        /// `upload` of this id.
        case upload(String)
        /// `download` of this id.
        case download(String)
        /// `delete` of this id.
        case delete(String)
    }

    /// What a failing transfer throws.
    public struct InjectedFailure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The id whose transfer failed.
        public var id: String
        /// Says that the test made it fail.
        public var description: String { "injected failure for attachment \(id)" }
    }

    /// Every call received, in order.
    public private(set) var requests: [Request] = []
    /// The files stored, by id.
    public private(set) var files: [String: Data]
    /// The ids whose uploads and downloads throw ``InjectedFailure``.
    public private(set) var failing: Set<String> = []

    /// A transport that already stores `files`.
    public init(files: [String: Data] = [:]) {
        self.files = files
    }

    /// Makes the transfers of `ids` throw (an empty set: none).
    public func setFailing(_ ids: Set<String>) {
        failing = ids
    }

    /// Stores the bytes of `file` under `id`.
    public func upload(_ file: URL, id: String) async throws {
        requests.append(.upload(id))
        if failing.contains(id) { throw InjectedFailure(id: id) }
        files[id] = try Data(contentsOf: file)
    }

    /// Writes the bytes stored under `id` to `destination`.
    /// - Throws: ``AttachmentTransportError/notFound(id:)`` when none are.
    public func download(id: String, to destination: URL) async throws {
        requests.append(.download(id))
        if failing.contains(id) { throw InjectedFailure(id: id) }
        guard let data = files[id] else { throw AttachmentTransportError.notFound(id: id) }
        try data.write(to: destination)
    }

    /// Removes the bytes stored under `id`.
    public func delete(id: String) async throws {
        requests.append(.delete(id))
        files[id] = nil
    }
}
