import OfflineSyncCore
import OfflineSyncStore
/// How far the newest journal reaches on disk: where its records end, and how far the zero bytes written ahead of
/// them go.
///
/// The writer keeps zeros written ahead of the records, so that an append overwrites blocks the file already has
/// and its `fdatasync` writes data only, without committing a new file size as well. On ext4 that makes a synced
/// append of a few hundred bytes to a few KiB 1.3 to 2 times as fast (`Docs/PerformanceHistory.md`). Readers take a run of
/// zeros that reaches the end of a journal as free space (`Docs/JournalFormat.md`).
struct JournalExtent: Sendable, Equatable {
    /// The least and the most zero bytes written ahead at a time.
    static let minimumAhead: Int64 = 64 << 10
    static let maximumAhead: Int64 = 1 << 20

    /// The end of the last record: where the next append goes.
    private(set) var end: Int64
    /// The file's size: ``end`` plus the zeros written ahead.
    private(set) var allocated: Int64
    /// Whether bytes were written since the last sync (by ``Durability/buffered`` or a deferred apply).
    private(set) var hasUnsyncedBytes = false
    /// How far the journal is known to be on the disk: the end of its records at the last successful sync. Each
    /// apply record carries it as `"d"`, so that recovery can tell pages a power loss never wrote from damage
    /// (`Docs/JournalFormat.md`, "Opening and recovery").
    private(set) var syncedEnd: Int64

    /// A journal of `end` bytes followed by zeros up to `allocated` (`end` when there are none), known durable up to
    /// `synced` (`end` when all of it is).
    init(end: Int64, allocated: Int64? = nil, synced: Int64? = nil) {
        self.end = end
        self.allocated = max(end, allocated ?? end)
        self.syncedEnd = min(end, synced ?? end)
    }

    /// The zeros to write after `count` new bytes at ``end``: none while those fit in the zeros already there, else
    /// enough to reach a multiple of 4 KiB at least a quarter of the journal's length (64 KiB to 1 MiB) past them.
    func zeros(afterAppending count: Int) -> Int {
        let newEnd = end + Int64(count)
        guard newEnd > allocated else { return 0 }
        let ahead = min(max(newEnd / 4, Self.minimumAhead), Self.maximumAhead)
        let target = (newEnd + ahead + 4095) / 4096 * 4096
        return Int(target - newEnd)
    }

    /// `count` bytes were written at ``end``, followed by `zeros` zero bytes, and the file synced when `synced` is set.
    mutating func appended(_ count: Int, zeros: Int, synced: Bool) {
        end += Int64(count)
        allocated = max(allocated, end + Int64(zeros))
        hasUnsyncedBytes = !synced
        if synced { syncedEnd = end }
    }

    /// The file was truncated to ``end``.
    mutating func cutBack() {
        allocated = end
    }
}
