/// Where one attachment stands, for the screen that shows it (``AttachmentQueue/state(of:)``).
public enum AttachmentState: Sendable, Hashable {
    /// The file is on the device and on the server.
    case local
    /// The file is on the device and not uploaded yet.
    case pendingUpload
    /// The file is on the server and not on the device yet.
    case pendingDownload
    /// The last transfer failed, with its error in words; the next ``AttachmentQueue/sync()`` tries again.
    case failed(String)
    /// Neither the device nor the server has it.
    case missing
}
