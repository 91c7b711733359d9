import OfflineSyncCore
import OfflineSyncStore
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// What reading one journal file found: the valid records, where they end, and the first problem.
struct JournalScan: Sendable {
    /// A problem found while scanning.
    enum Problem: Sendable, Hashable {
        /// The end of the file after `offset` is an incomplete or invalid record, with no valid record after it:
        /// the normal result of a crash during an append. (Zero bytes that reach the end after valid records are
        /// not a problem but free space; a file of zeros alone is a torn header.) Also a hole of pages that were never
        /// written after the last durable record, followed by records none of which was made durable: what a power
        /// loss leaves when the disk wrote a later page back before an earlier one (``unwrittenPages(in:line:)``).
        case tornTail(offset: Int64, reason: String)
        /// An invalid or out-of-sequence record, followed by valid records or with a valid checksum.
        case corrupted(offset: Int64, sequence: Int64?, reason: String)
        /// The header names an unknown format version.
        case unsupportedFormat(version: Int64)
        /// The header says the records are sealed with the key `keyIdentifier`, and the scan has no cipher.
        case needsKey(keyIdentifier: String)
    }

    /// The generation the manifest names for this file.
    var generation: Int64
    /// The file's path.
    var path: String
    /// The file's size in bytes: ``validEnd`` plus any damage, or plus the zeros the writer wrote ahead of its records.
    var size: Int64
    /// The byte offset just after the last valid line (header included); 0 when even the header is not valid.
    var validEnd: Int64 = 0
    /// The batches of the valid apply records, in order (empty when scanned without collecting them).
    var batches: [[StoreChange]] = []
    /// How many valid apply records the file holds.
    var recordCount = 0
    /// The sequence number of the last valid record (the header's base sequence when there is none).
    var lastSequence: Int64
    /// How far the valid records say the file was durable: the end of the header, or the largest `d` a valid
    /// record carries, whichever is further (at most ``validEnd``).
    var durableEnd: Int64 = 0
    /// The first problem, if any.
    var problem: Problem?

    private init(path: String, generation: Int64, size: Int, baseSequence: Int64) {
        self.generation = generation
        self.path = path
        self.size = Int64(size)
        self.lastSequence = baseSequence
    }

    /// Scans `bytes`, the content of the journal of `generation`, which must continue from `baseSequence`; with
    /// `sealing`, the journal must be sealed and its records are opened with it (without, it must be plaintext).
    /// Lines are decoded on every core; the sequence checks then run in order.
    static func scan(_ bytes: [UInt8], path: String, generation: Int64, baseSequence: Int64, collectBatches: Bool,
                     sealing: JournalSealing? = nil) async -> JournalScan {
        var scan = JournalScan(path: path, generation: generation, size: bytes.count, baseSequence: baseSequence)
        let (ranges, tailStart) = ParallelLines.lines(in: bytes)
        let decoded = await ParallelLines.map(ranges, of: bytes) { JournalRecord.decode($0, sealing: sealing) }
        bytes.withUnsafeBytes { raw in
            scan.check(raw, ranges: ranges, decoded: decoded, tailStart: tailStart, baseSequence: baseSequence,
                       collectBatches: collectBatches, isSealed: sealing != nil)
        }
        return scan
    }

    /// A scan of a journal the manifest names that is not there: damage at its first byte.
    static func missing(path: String, generation: Int64, baseSequence: Int64) -> JournalScan {
        var scan = JournalScan(path: path, generation: generation, size: 0, baseSequence: baseSequence)
        scan.problem = .corrupted(offset: 0, sequence: baseSequence, reason: "the file is missing")
        return scan
    }

    private mutating func check(_ raw: UnsafeRawBufferPointer, ranges: [Range<Int>], decoded: [Result<JournalRecord, RecordProblem>],
                                tailStart: Int, baseSequence: Int64, collectBatches: Bool, isSealed: Bool) {
        for (index, range) in ranges.enumerated() {
            let offset = range.lowerBound
            let expected = lastSequence + 1
            switch decoded[index] {
            case .failure(.unsupportedFormat(let version)):
                problem = .unsupportedFormat(version: version)
                return
            case .failure(.unauthentic(let reason)):
                problem = .corrupted(offset: Int64(offset), sequence: offset == 0 ? baseSequence : expected, reason: reason)
                return
            case .failure(.damaged(let reason)):
                if Self.hasValidLine(in: raw, from: range.upperBound + 1) {
                    if offset > 0, let hole = Self.unwrittenPages(in: raw, line: range),
                       Self.noneClaimsDurable(offset, after: index, raw: raw, ranges: ranges, decoded: decoded, generation: generation) {
                        problem = .tornTail(offset: Int64(offset), reason: reason + ", with pages never written from byte \(hole) and only records never made durable after them (a power loss during out-of-order write-back)")
                    } else {
                        problem = .corrupted(offset: Int64(offset), sequence: offset == 0 ? baseSequence : expected, reason: reason + ", and valid records follow it")
                    }
                } else {
                    problem = .tornTail(offset: Int64(offset), reason: reason)
                }
                return
            case .success(let record):
                if case .header(_, _, let key?) = record.body, offset == 0, !isSealed {
                    problem = .needsKey(keyIdentifier: key)
                    return
                }
                if let reason = check(record, isFirst: offset == 0, baseSequence: baseSequence, isSealed: isSealed) {
                    problem = .corrupted(offset: Int64(offset), sequence: offset == 0 ? baseSequence : expected, reason: reason)
                    return
                }
                if case .apply(let changes) = record.body {
                    lastSequence = record.sequence
                    recordCount += 1
                    if collectBatches { batches.append(changes) }
                    if let claimed = record.durableEnd { durableEnd = max(durableEnd, min(claimed, Int64(offset))) }
                } else {
                    durableEnd = Int64(range.upperBound + 1)
                }
            }
            validEnd = Int64(range.upperBound + 1)
        }
        if tailStart < raw.count {
            let zeros = Self.isZero(raw, from: tailStart)
            if zeros && validEnd > 0 { return }  // Free space the writer wrote ahead of its records.
            problem = .tornTail(offset: Int64(tailStart), reason: zeros ? "trailing zero bytes" : "the last record is incomplete (no newline)")
        } else if raw.isEmpty {
            problem = .tornTail(offset: 0, reason: "the journal is empty (its header was never written)")
        }
    }

    private func check(_ record: JournalRecord, isFirst: Bool, baseSequence: Int64, isSealed: Bool) -> String? {
        if record.generation != generation {
            return "the record belongs to generation \(record.generation), but the file is generation \(generation) (a stale record)"
        }
        switch (record.body, isFirst) {
        case (.header(_, let base, let key), true):
            if isSealed && key == nil {
                return "the journal of an encrypted store has a plaintext header (its records are not sealed)"
            }
            if base != baseSequence {
                return "the header continues from sequence \(base), but the store reached sequence \(baseSequence) before this journal"
            }
            return nil
        case (.header, false):
            return "a second header record in the middle of the journal"
        case (.apply, true):
            return "the journal does not start with a header record"
        case (.apply, false):
            if record.sequence != lastSequence + 1 {
                return "sequence \(record.sequence) follows \(lastSequence); sequence numbers must increase by exactly 1"
            }
            return nil
        }
    }

    static func newline(in raw: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < raw.count, let base = raw.baseAddress, let found = memchr(base + start, 0x0A, raw.count - start) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    /// Whether every byte of `raw` from `start` (which is less than its count) on is zero: the first is, and each of
    /// the others equals the one before it.
    static func isZero(_ raw: UnsafeRawBufferPointer, from start: Int) -> Bool {
        guard let base = raw.baseAddress, raw[start] == 0 else { return false }
        return memcmp(base + start, base + start + 1, raw.count - start - 1) == 0
    }

    /// The smallest unit a disk writes whole (a 4 KiB page is 8 of them): a lost write leaves a multiple of it.
    static let sectorBytes = 512

    /// Where, inside the damaged line `line` (its newline excluded), a run of zero bytes starts that begins at the
    /// line's start or at a multiple of ``sectorBytes`` and ends at a multiple of ``sectorBytes``, with bytes that
    /// are not zero after it: disk sectors that were never written, the rest of the line written after them. Nil
    /// when there is none (a flipped bit, a torn record, a foreign write). A zero byte never occurs inside a valid
    /// line, and the store's files only ever read zero where nothing was written yet.
    static func unwrittenPages(in raw: UnsafeRawBufferPointer, line: Range<Int>) -> Int? {
        guard let base = raw.baseAddress else { return nil }
        var index = line.lowerBound
        while index < line.upperBound, let found = memchr(base + index, 0, line.upperBound - index) {
            let start = base.distance(to: UnsafeRawPointer(found))
            var end = start
            while end < line.upperBound, raw[end] == 0 { end += 1 }
            if (start == line.lowerBound || start % sectorBytes == 0), end % sectorBytes == 0 { return start }
            index = end
        }
        return nil
    }

    /// Whether no line after the damaged line number `index` (which starts at `offset`) shows that `offset` had
    /// been made durable: each later line is either damaged itself (no matching checksum: more unwritten pages) or
    /// an apply record of this `generation` whose `d` is at most `offset`. A later line with a matching checksum
    /// that is no such record (a header, another generation's, an unauthentic one, one without `d`, or one whose
    /// `d` passes `offset`) means the damaged bytes had been synced: damage, not a hole.
    static func noneClaimsDurable(_ offset: Int, after index: Int, raw: UnsafeRawBufferPointer, ranges: [Range<Int>],
                                  decoded: [Result<JournalRecord, RecordProblem>], generation: Int64) -> Bool {
        for later in (index + 1)..<ranges.count {
            switch decoded[later] {
            case .success(let record):
                guard case .apply = record.body, record.generation == generation, let claimed = record.durableEnd,
                      claimed <= Int64(offset)
                else { return false }
            case .failure(.damaged):
                if LineFraming.problem(in: UnsafeRawBufferPointer(rebasing: raw[ranges[later]])) == nil { return false }
            case .failure(.unauthentic), .failure(.unsupportedFormat):
                return false
            }
        }
        return true
    }

    /// Whether any complete line from `start` on carries a matching checksum.
    static func hasValidLine(in raw: UnsafeRawBufferPointer, from start: Int) -> Bool {
        var offset = start
        while offset < raw.count, let newline = newline(in: raw, from: offset) {
            if LineFraming.problem(in: UnsafeRawBufferPointer(rebasing: raw[offset..<newline])) == nil { return true }
            offset = newline + 1
        }
        return false
    }
}
