import OfflineSyncCore
import OfflineSyncStore
/// What the first pass over a snapshot finds: its header, each table's name and item count in file order, and
/// where the checksum trailer starts. Made only for a snapshot whose trailer, checksum, header and line structure
/// are sound; its items are not parsed.
struct SnapshotLayout {
    /// The header's figures, with no tables yet.
    var contents: SnapshotContents
    var tables: [(name: String, count: Int)] = []
    var trailerStart = 0

    /// Checks the trailer, checksum, header and line structure of the snapshot `source` reads, a block at a time.
    /// A large file's second half is checked on another core meanwhile (``SnapshotLineScanner`` follows it from
    /// either state, ``CRC32C/combine(_:_:secondLength:)`` joins the checksums). The first half is read into
    /// `blocks.0`, the second into `blocks.1`.
    /// A damaged file is reported as the checksum's mismatch when the checksum does not match, whatever else is wrong.
    static func check(_ source: SnapshotSource, path: String,
                      blocks: (SnapshotBlock, SnapshotBlock)) async throws(JournalError) -> SnapshotLayout {
        let (trailerStart, stored) = try trailer(source, path: path)
        let split = trailerStart >= splitBytes ? try source.lineStart(before: trailerStart / 2) : 0
        var checksum: UInt32
        var scanner = SnapshotLineScanner(path: path)
        if split > 0 {
            async let secondHalf = Result { () throws(JournalError) in
                var inside = SnapshotLineScanner(path: path, resumingInsideATable: true)
                var outside = SnapshotLineScanner(path: path, resumingInsideATable: false)
                let checksum = try scan(source, split..<trailerStart, block: blocks.1) { raw, offset in
                    inside.scan(raw, at: offset)
                    outside.scan(raw, at: offset)
                }
                return (checksum, inside, outside)
            }
            let first = try scan(source, 0..<split, block: blocks.0) { scanner.scan($0, at: $1) }
            let (second, inside, outside) = try await secondHalf.get()
            checksum = CRC32C.combine(first, second, secondLength: trailerStart - split)
            scanner.follow(by: inside, or: outside)
        } else {
            checksum = try scan(source, 0..<trailerStart, block: blocks.0) { scanner.scan($0, at: $1) }
        }
        guard checksum == stored else { throw mismatch(path, at: trailerStart, stored: stored, computed: checksum) }
        return try scanner.layout(trailerStart: trailerStart)
    }

    /// The error for a checksum that does not match the trailer's.
    static func mismatch(_ path: String, at trailerStart: Int, stored: UInt32, computed: UInt32) -> JournalError {
        SnapshotReader.invalid(path, trailerStart, "checksum mismatch (stored \(LineFraming.hex(stored)), computed \(LineFraming.hex(computed)))")
    }

    /// Files at least this large (before the trailer) are checked in two halves at once.
    static let splitBytes = 2 << 20

    /// The checksum of the whole lines in `range`, read a block at a time into `block`, each block also given to
    /// `body` with its offset in the file.
    private static func scan(_ source: SnapshotSource, _ range: Range<Int>, block: SnapshotBlock,
                             _ body: (UnsafeRawBufferPointer, Int) -> Void) throws(JournalError) -> UInt32 {
        var checksum: UInt32 = 0
        var offset = range.lowerBound
        while offset < range.upperBound {
            try source.read(into: block, from: offset, upTo: range.upperBound)
            block.withUnsafeBytes { raw in
                checksum = CRC32C.checksum(raw, continuing: checksum)
                body(raw, offset)
            }
            offset += block.count
        }
        return checksum
    }

    /// Where the trailer starts and the checksum it holds.
    static func trailer(_ source: SnapshotSource, path: String) throws(JournalError) -> (Int, UInt32) {
        let count = source.count
        guard count > 0, try source.read((count - 1)..<count) == [0x0A] else {
            throw SnapshotReader.invalid(path, count, "the file does not end with a newline (it is incomplete)")
        }
        let trailerStart = try source.lineStart(before: count - 1)
        let opening = Array(SnapshotWriter.trailerOpening.utf8)
        let lineLength = count - 1 - trailerStart
        let trailer = lineLength == opening.count + 10 ? try source.read(trailerStart..<(count - 1)) : []
        let stored = trailer.withUnsafeBytes { raw in raw.isEmpty ? nil : CRC32C.readHex(raw, at: opening.count) }
        guard let stored, trailer.starts(with: opening),
              trailer[opening.count + 8] == UInt8(ascii: "\""), trailer[opening.count + 9] == UInt8(ascii: "}")
        else { throw SnapshotReader.invalid(path, trailerStart, "the last line is not the checksum trailer") }
        return (trailerStart, stored)
    }

    /// Whether `line` closes a table (`]`, or `],` before the next table).
    static func closesTable(_ line: UnsafeRawBufferPointer) -> Bool {
        line.count <= 2 && line.first == UInt8(ascii: "]")
    }

    /// The name a table line (`"name":[`) gives, or nil when `line` is no table line.
    static func tableName(_ line: UnsafeRawBufferPointer) -> String? {
        guard line.count > 3, line[line.count - 2] == UInt8(ascii: ":"), line[line.count - 1] == UInt8(ascii: "[") else { return nil }
        let nameBytes = UnsafeRawBufferPointer(rebasing: line[0..<(line.count - 2)]).assumingMemoryBound(to: UInt8.self)
        guard case .success(.string(let name)) = JSONReader.result(nameBytes) else { return nil }
        return name
    }

    /// The figures of the header line.
    /// - Throws: ``JournalError/invalidSnapshot(file:offset:reason:)`` or ``JournalError/unsupportedFormat(file:version:)``.
    static func header(_ line: UnsafeRawBufferPointer, path: String) throws(JournalError) -> SnapshotContents {
        let opening = Array(SnapshotWriter.headerOpening.utf8)
        let closing = Array(SnapshotWriter.headerClosing.utf8)
        guard line.count > opening.count + closing.count, line.starts(with: opening),
              line[(line.count - closing.count)...].elementsEqual(closing)
        else { throw SnapshotReader.invalid(path, 0, "the first line is not the snapshot header") }
        let middle = UnsafeRawBufferPointer(rebasing: line[opening.count..<(line.count - closing.count)])
        guard case .success(.object(let object)) = JSONReader.result(middle.assumingMemoryBound(to: UInt8.self)),
              case .int(let format)? = object["format"]
        else { throw SnapshotReader.invalid(path, 0, "the snapshot header is not a JSON object with a format") }
        guard format == JournalRecord.formatVersion else { throw JournalError.unsupportedFormat(file: path, version: format) }
        guard case .int(let generation)? = object["generation"], case .int(let lastSequence)? = object["lastSequence"],
              case .int(let items)? = object["items"]
        else { throw SnapshotReader.invalid(path, 0, "the snapshot header lacks generation, lastSequence or items") }
        return SnapshotContents(generation: generation, lastSequence: lastSequence, itemCount: Int(items))
    }
}
