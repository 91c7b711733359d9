import OfflineSyncCore
import OfflineSyncStore
/// The checks of ``SnapshotLayout/check(_:path:blocks:)`` (trailer, checksum, header, line structure) made on the
/// blocks of lines as ``SnapshotReader`` reads them to parse, for a snapshot whose every read is authenticated (a
/// sealed one, ``SnapshotSource/isAuthenticated``): its blocks are then opened once, not once per pass.
///
/// A fault in the lines is reported as the two passes report it: the checksum's mismatch when the checksum does not
/// match, whatever else is wrong (``failure(_:source:)`` reads the rest of the file to know).
struct SnapshotStreamCheck {
    let path: String
    /// Where the checksum trailer starts: the end of the lines to read.
    let trailerStart: Int
    private let stored: UInt32
    private var checksum: UInt32 = 0
    private var scanner: SnapshotLineScanner
    /// The end of the lines taken so far.
    private var end = 0

    /// Reads and checks the trailer of the snapshot `source` reads.
    init(_ source: SnapshotSource, path: String) throws(JournalError) {
        self.path = path
        (trailerStart, stored) = try SnapshotLayout.trailer(source, path: path)
        scanner = SnapshotLineScanner(path: path)
    }

    /// Takes in the next block of whole lines, which starts at `offset`; throws the first fault of its lines (report
    /// it through ``failure(_:source:)``).
    mutating func take(_ block: SnapshotBlock, at offset: Int) throws(JournalError) {
        block.withUnsafeBytes { raw in
            checksum = CRC32C.checksum(raw, continuing: checksum)
            scanner.scan(raw, at: offset)
        }
        end = offset + block.count
        if let fault = scanner.fault { throw fault }
    }

    /// The header's figures, once the first block was taken.
    var header: SnapshotContents? { scanner.contents }

    /// What to report for `fault`, found while the lines taken so far were checked or parsed, as the two passes
    /// report it: the checksum's mismatch when the checksum of the whole file does not match, else the first fault
    /// of the line structure (the rest is read and checked to know), else `fault`.
    mutating func failure(_ fault: JournalError, source: SnapshotSource) -> JournalError {
        let block = SnapshotBlock(capacity: SnapshotSource.blockBytes)
        do throws(JournalError) {
            while end < trailerStart {
                try source.read(into: block, from: end, upTo: trailerStart)
                block.withUnsafeBytes { raw in
                    checksum = CRC32C.checksum(raw, continuing: checksum)
                    scanner.scan(raw, at: end)
                }
                end += block.count
            }
            _ = try layout()
        } catch {
            return error
        }
        return fault
    }

    /// The layout, once every line before the trailer was taken.
    /// - Throws: the checksum's mismatch, or what ``SnapshotLineScanner/layout(trailerStart:)`` throws.
    func layout() throws(JournalError) -> SnapshotLayout {
        guard checksum == stored else { throw SnapshotLayout.mismatch(path, at: trailerStart, stored: stored, computed: checksum) }
        return try scanner.layout(trailerStart: trailerStart)
    }
}
