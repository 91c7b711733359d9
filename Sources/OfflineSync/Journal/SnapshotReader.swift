/// What a snapshot file holds.
struct SnapshotContents: Sendable {
    var generation: Int64
    var lastSequence: Int64
    var itemCount: Int
    /// The items, loaded (the tables share the snapshot's bytes), with the indexes declared at reading.
    var tables = TableSet()
}

/// Reads and checks a snapshot written by ``SnapshotWriter``.
enum SnapshotReader {
    /// Item lines parsed at a time: bounds what parsing holds beside the loaded tables.
    static let linesPerRound = 4_096

    /// Parses `bytes`, the content of the snapshot at `path`, into tables that keep `indexes` (already valid).
    /// Every line is checked as the JSON reader checks a document, but only its id and indexed values are decoded
    /// (``JSONReader/skimObject(_:keys:)``): the tables refer to the items' text in `bytes`. Lines are parsed on every
    /// core a round at a time, the next round while the last one is loaded into the tables (which is sequential).
    /// - Throws: ``JournalError/invalidSnapshot(file:offset:reason:)`` or ``JournalError/unsupportedFormat(file:version:)``.
    static func read(_ bytes: [UInt8], path: String, indexes: [IndexDefinition] = []) async throws(JournalError) -> SnapshotContents {
        let result: Result<(SnapshotContents, Layout), JournalError> = bytes.withUnsafeBytes { raw in
            do throws(JournalError) { return .success(try structure(raw, path: path)) } catch { return .failure(error) }
        }
        var (contents, layout) = try result.get()
        do { try contents.tables.defineIndexes(indexes) } catch { throw JournalError.invalidIndex(error) }
        let rounds = Round.all(layout, fields: layout.tables.map { contents.tables.indexFields(table: $0.name) })
        func startParsing(_ round: Round) -> Task<[ParsedLine], Never> {
            let lines = Array(layout.itemLines[round.lines])
            return Task { await ParallelLines.map(lines, of: bytes) { parseLine($0, keys: round.keys, fields: round.fields) } }
        }
        var next = rounds.first.map(startParsing)
        defer { next?.cancel() }
        var replacedAny = false
        for (index, round) in rounds.enumerated() {
            guard let parsing = next else { break }
            let parsed = await parsing.value
            next = index + 1 < rounds.count ? startParsing(rounds[index + 1]) : nil
            let name = layout.tables[round.table].name
            var loaded: [LoadedItem] = []
            loaded.reserveCapacity(parsed.count)
            for (range, line) in zip(layout.itemLines[round.lines], parsed) {
                switch line {
                case .invalid: throw invalid(path, range.lowerBound, "the line is not one JSON object")
                case .withoutID: continue
                case .item(let key, let length, let values):
                    loaded.append(LoadedItem(range: range.lowerBound..<(range.lowerBound + length), key: key, indexValues: values))
                }
            }
            if round.isFirstOfTable {
                contents.tables.reserve(table: name, items: layout.tables[round.table].count, sample: loaded.first)
                replacedAny = false
            }
            replacedAny = contents.tables.load(loaded, table: name, base: bytes) || replacedAny
            if round.isLastOfTable { contents.tables.finishLoading(table: name, replacedAny: replacedAny) }
        }
        return contents
    }

    /// One item line's id key, length without its trailing comma, and encoded index values; `keys` are the members
    /// to read (the id, then every indexed field once), `fields` the field lists of the table's indexes.
    private static func parseLine(_ line: UnsafeRawBufferPointer, keys: [String], fields: [[String]]) -> ParsedLine {
        let end = line.last == UInt8(ascii: ",") ? line.count - 1 : line.count
        let text = UnsafeRawBufferPointer(rebasing: line[0..<end]).assumingMemoryBound(to: UInt8.self)
        guard case .success(let ranges) = JSONReader.skimObject(text, keys: keys) else { return .invalid }
        func value(_ key: String) -> JSONValue {
            guard let position = keys.firstIndex(of: key), let range = ranges[position],
                  case .success(let value) = JSONReader.result(UnsafeBufferPointer(rebasing: text[range]))
            else { return .null }
            return value
        }
        guard case .string(let id) = value("id") else { return .withoutID }
        let indexValues = fields.map { list in
            var encoded: [UInt8] = []
            for field in list { OrderedKey.append(value(field), to: &encoded) }
            return encoded
        }
        return .item(key: ItemID.key(id), length: end, indexValues: indexValues)
    }

    /// Up to ``linesPerRound`` item lines of one table, parsed together.
    private struct Round: Sendable {
        var table: Int
        /// The positions of the round's lines in ``Layout/itemLines``.
        var lines: Range<Int>
        var keys: [String]
        var fields: [[String]]
        var isFirstOfTable: Bool
        var isLastOfTable: Bool

        /// The rounds of every table in `layout`, in file order; `fields` holds each table's index field lists.
        static func all(_ layout: Layout, fields: [[[String]]]) -> [Round] {
            var rounds: [Round] = []
            var position = 0
            for (table, (_, count)) in layout.tables.enumerated() {
                var keys = ["id"]
                for field in fields[table].joined() where !keys.contains(field) { keys.append(field) }
                for start in stride(from: position, to: position + count, by: linesPerRound) {
                    let end = min(start + linesPerRound, position + count)
                    rounds.append(Round(table: table, lines: start..<end, keys: keys,
                                        fields: fields[table], isFirstOfTable: start == position, isLastOfTable: end == position + count))
                }
                position += count
            }
            return rounds
        }
    }

    /// One item line, parsed.
    private enum ParsedLine: Sendable {
        case item(key: String, length: Int, indexValues: [[UInt8]])
        case withoutID
        case invalid
    }

    /// Where the items are: the byte range of each item line, and each table's name and item count, in order.
    private struct Layout {
        var itemLines: [Range<Int>] = []
        var tables: [(name: String, count: Int)] = []
    }

    private static func invalid(_ path: String, _ offset: Int, _ reason: String) -> JournalError {
        .invalidSnapshot(file: path, offset: Int64(offset), reason: reason)
    }

    /// Checks the trailer, checksum, header and line structure; leaves the items unparsed.
    private static func structure(_ raw: UnsafeRawBufferPointer, path: String) throws(JournalError) -> (SnapshotContents, Layout) {
        guard raw.count > 0, raw[raw.count - 1] == 0x0A else {
            throw invalid(path, raw.count, "the file does not end with a newline (it is incomplete)")
        }
        var trailerStart = raw.count - 1
        while trailerStart > 0 && raw[trailerStart - 1] != 0x0A { trailerStart -= 1 }
        let trailer = UnsafeRawBufferPointer(rebasing: raw[trailerStart..<(raw.count - 1)])
        let opening = Array(SnapshotWriter.trailerOpening.utf8)
        guard trailer.count == opening.count + 10, trailer.starts(with: opening),
              let stored = CRC32C.readHex(trailer, at: opening.count),
              trailer[opening.count + 8] == UInt8(ascii: "\""), trailer[opening.count + 9] == UInt8(ascii: "}")
        else { throw invalid(path, trailerStart, "the last line is not the checksum trailer") }
        let actual = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<trailerStart]))
        guard actual == stored else {
            throw invalid(path, trailerStart, "checksum mismatch (stored \(LineFraming.hex(stored)), computed \(LineFraming.hex(actual)))")
        }
        guard let firstNewline = JournalScan.newline(in: raw, from: 0) else { throw invalid(path, 0, "no header line") }
        let metadata = try header(UnsafeRawBufferPointer(rebasing: raw[0..<firstNewline]), path: path)
        var layout = Layout()
        var currentName: String?
        var currentCount = 0
        var offset = firstNewline + 1
        while offset < trailerStart {
            guard let newline = JournalScan.newline(in: raw, from: offset) else { break }
            let line = UnsafeRawBufferPointer(rebasing: raw[offset..<newline])
            if let name = currentName {
                if line.count <= 2, line.first == UInt8(ascii: "]") {
                    layout.tables.append((name, currentCount))
                    currentName = nil
                } else {
                    layout.itemLines.append(offset..<newline)
                    currentCount += 1
                }
            } else {
                let nameBytes = UnsafeRawBufferPointer(rebasing: line[0..<max(0, line.count - 2)]).assumingMemoryBound(to: UInt8.self)
                guard line.count > 3, line[line.count - 2] == UInt8(ascii: ":"), line[line.count - 1] == UInt8(ascii: "["),
                      case .success(.string(let name)) = JSONReader.result(nameBytes)
                else { throw invalid(path, offset, "expected a table line \"name\":[") }
                currentName = name
                currentCount = 0
            }
            offset = newline + 1
        }
        guard currentName == nil, offset == trailerStart else { throw invalid(path, offset, "a table is not closed") }
        guard layout.itemLines.count == metadata.itemCount else {
            throw invalid(path, trailerStart, "the header announces \(metadata.itemCount) items but the file holds \(layout.itemLines.count)")
        }
        return (metadata, layout)
    }

    private static func header(_ line: UnsafeRawBufferPointer, path: String) throws(JournalError) -> SnapshotContents {
        let opening = Array(SnapshotWriter.headerOpening.utf8)
        let closing = Array(SnapshotWriter.headerClosing.utf8)
        guard line.count > opening.count + closing.count, line.starts(with: opening),
              line[(line.count - closing.count)...].elementsEqual(closing)
        else { throw invalid(path, 0, "the first line is not the snapshot header") }
        let middle = UnsafeRawBufferPointer(rebasing: line[opening.count..<(line.count - closing.count)])
        guard case .success(.object(let object)) = JSONReader.result(middle.assumingMemoryBound(to: UInt8.self)),
              case .int(let format)? = object["format"]
        else { throw invalid(path, 0, "the snapshot header is not a JSON object with a format") }
        guard format == JournalRecord.formatVersion else { throw JournalError.unsupportedFormat(file: path, version: format) }
        guard case .int(let generation)? = object["generation"], case .int(let lastSequence)? = object["lastSequence"],
              case .int(let items)? = object["items"]
        else { throw invalid(path, 0, "the snapshot header lacks generation, lastSequence or items") }
        return SnapshotContents(generation: generation, lastSequence: lastSequence, itemCount: Int(items))
    }
}
