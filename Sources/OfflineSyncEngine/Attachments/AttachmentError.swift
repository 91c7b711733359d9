/// Why an ``AttachmentQueue`` call failed.
public enum AttachmentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The id is not one the queue can name a file by: 1 to 128 ASCII letters, digits, `-`, `_` or `.`, not starting
    /// with `.`.
    case invalidID(String)
    /// The queue's directory (or a file given to it) is not a local file URL.
    case invalidDirectory(String)
    /// An attachment field names a reserved or invalid table, or no field at all.
    case invalidField(table: String, field: String)
    /// A file operation failed.
    case file(operation: String, path: String, reason: String)
    /// A download (or upload) failed; the next ``AttachmentQueue/sync()`` tries again.
    case transferFailed(id: String, reason: String)

    /// What went wrong, and what to do.
    public var description: String {
        switch self {
        case .invalidID(let id):
            "\"\(id)\" is not an attachment id: use 1 to 128 ASCII letters, digits, '-', '_' or '.', not starting with '.'."
        case .invalidDirectory(let url):
            "\(url) is not a local file URL; give the attachment queue a directory on this device."
        case .invalidField(let table, let field):
            "The attachment field \"\(field)\" of table \"\(table)\" cannot be watched: the table name is invalid or reserved, or the field is empty."
        case .file(let operation, let path, let reason):
            "Could not \(operation) \(path): \(reason)."
        case .transferFailed(let id, let reason):
            "The attachment \"\(id)\" could not be transferred: \(reason)"
        }
    }

    /// Throws unless `id` can name a file of the queue's directory.
    static func validate(_ id: String) throws(AttachmentError) {
        let bytes = Array(id.utf8)
        let allowed = bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
        guard allowed, (1...128).contains(bytes.count), bytes.first != UInt8(ascii: ".") else { throw AttachmentError.invalidID(id) }
    }
}
