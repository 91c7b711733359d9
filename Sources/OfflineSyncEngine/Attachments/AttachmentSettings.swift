/// How an ``AttachmentQueue`` keeps its files and moves them.
public struct AttachmentSettings: Sendable, Hashable {
    /// The bytes the queue's files may take before files that no pending change needs are evicted, least recently
    /// used first (they are downloaded again when asked for).
    public var cacheLimitBytes: Int64
    /// How many uploads and downloads run at once.
    public var maximumConcurrentTransfers: Int
    /// Whether files that pulled items refer to are downloaded in the background after each pull (true), or only
    /// when first asked for with ``AttachmentQueue/file(for:)`` or by ``AttachmentQueue/sync()`` (false).
    public var downloadsAfterPull: Bool

    /// Settings with a 256 MiB cache, four transfers at once and downloads after each pull.
    public init(cacheLimitBytes: Int64 = 256 << 20, maximumConcurrentTransfers: Int = 4, downloadsAfterPull: Bool = true) {
        self.cacheLimitBytes = cacheLimitBytes
        self.maximumConcurrentTransfers = maximumConcurrentTransfers
        self.downloadsAfterPull = downloadsAfterPull
    }
}
