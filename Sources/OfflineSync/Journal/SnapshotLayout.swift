/// What the first pass over a snapshot finds: its header, each table's name and item count in file order, and
/// where the checksum trailer starts. Made only for a snapshot whose trailer, checksum, header and line structure
/// are sound; its items are not parsed.
struct SnapshotLayout {
    /// The header's figures, with no tables yet.
    var contents: SnapshotContents
    var tables: [(name: String, count: Int)] = []
    var trailerStart = 0

    /// Checks the trailer, checksum, header and line structure of the snapshot `source` reads, a block at a time.
    /// A damaged file is reported as the checksum's mismatch when the checksum does not match, whatever else is wrong.
    static func check(_ source: SnapshotSource, path: String, block: SnapshotBlock) throws(JournalError) -> SnapshotLayout {
        let (trailerStart, stored) = try trailer(source, path: path)
        var checksum: UInt32 = 0
        var scanner = LineScanner(path: path)
        var offset = 0
        while offset < trailerStart {
            try source.read(into: block, from: offset, upTo: trailerStart)
            block.withUnsafeBytes { raw in
                checksum = CRC32C.checksum(raw, continuing: checksum)
                scanner.scan(raw, at: offset)
            }
            offset += block.count
        }
        guard checksum == stored else {
            throw SnapshotReader.invalid(path, trailerStart, "checksum mismatch (stored \(LineFraming.hex(stored)), computed \(LineFraming.hex(checksum)))")
        }
        return try scanner.layout(trailerStart: trailerStart)
    }

    /// Where the trailer starts and the checksum it holds.
    private static func trailer(_ source: SnapshotSource, path: String) throws(JournalError) -> (Int, UInt32) {
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

    /// The structure of a snapshot's lines before its trailer, seen a block at a time; the first fault is kept
    /// and thrown once the checksum has been checked.
    private struct LineScanner {
        let path: String
        var contents: SnapshotContents?
        var tables: [(name: String, count: Int)] = []
        var currentName: String?
        var currentCount = 0
        var items = 0
        var fault: JournalError?

        init(path: String) { self.path = path }

        mutating func scan(_ raw: UnsafeRawBufferPointer, at start: Int) {
            var offset = 0
            while fault == nil, offset < raw.count, let newline = JournalScan.newline(in: raw, from: offset) {
                let line = UnsafeRawBufferPointer(rebasing: raw[offset..<newline])
                do throws(JournalError) { try scanLine(line, at: start + offset) } catch { fault = error }
                offset = newline + 1
            }
        }

        private mutating func scanLine(_ line: UnsafeRawBufferPointer, at offset: Int) throws(JournalError) {
            guard contents != nil else {
                contents = try SnapshotLayout.header(line, path: path)
                return
            }
            if let name = currentName {
                if line.count <= 2, line.first == UInt8(ascii: "]") {
                    tables.append((name, currentCount))
                    currentName = nil
                } else {
                    currentCount += 1
                    items += 1
                }
            } else {
                let nameBytes = UnsafeRawBufferPointer(rebasing: line[0..<max(0, line.count - 2)]).assumingMemoryBound(to: UInt8.self)
                guard line.count > 3, line[line.count - 2] == UInt8(ascii: ":"), line[line.count - 1] == UInt8(ascii: "["),
                      case .success(.string(let name)) = JSONReader.result(nameBytes)
                else { throw SnapshotReader.invalid(path, offset, "expected a table line \"name\":[") }
                currentName = name
                currentCount = 0
            }
        }

        func layout(trailerStart: Int) throws(JournalError) -> SnapshotLayout {
            if let fault { throw fault }
            guard let contents else { throw SnapshotReader.invalid(path, 0, "no header line") }
            guard currentName == nil else { throw SnapshotReader.invalid(path, trailerStart, "a table is not closed") }
            guard items == contents.itemCount else {
                throw SnapshotReader.invalid(path, trailerStart, "the header announces \(contents.itemCount) items but the file holds \(items)")
            }
            return SnapshotLayout(contents: contents, tables: tables, trailerStart: trailerStart)
        }
    }

    fileprivate static func header(_ line: UnsafeRawBufferPointer, path: String) throws(JournalError) -> SnapshotContents {
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
