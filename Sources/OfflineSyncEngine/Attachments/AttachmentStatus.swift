/// Where an ``AttachmentQueue``'s transfers stand, as ``AttachmentQueue/statusUpdates()`` reports it.
public struct AttachmentStatus: Sendable, Hashable {
    /// Files added on the device and not uploaded yet.
    public var pendingUploads: Int
    /// Files that local items refer to and the device lacks, as the queue last counted them.
    public var pendingDownloads: Int
    /// Files whose last transfer failed (retried by the next ``AttachmentQueue/sync()``).
    public var failed: Int
    /// The bytes of the transfers running now.
    public var bytesInFlight: Int64

    /// A status with these counts.
    public init(pendingUploads: Int = 0, pendingDownloads: Int = 0, failed: Int = 0, bytesInFlight: Int64 = 0) {
        self.pendingUploads = pendingUploads
        self.pendingDownloads = pendingDownloads
        self.failed = failed
        self.bytesInFlight = bytesInFlight
    }
}
