import OfflineSyncCore
import OfflineSyncStore
/// What a snapshot file holds.
struct SnapshotContents: Sendable {
    var generation: Int64
    var lastSequence: Int64
    var itemCount: Int
    /// The items, loaded (packed), with the indexes declared at reading.
    var tables = TableSet()
}

/// Reads and checks a snapshot written by ``SnapshotWriter``, a block of lines at a time (``SnapshotSource``), so
/// that what opening holds beside the tables it builds is one block and the lines being parsed, never the file.
enum SnapshotReader {
    /// Parses `bytes`, the content of the snapshot at `path`, into tables that keep `indexes` (already valid).
    static func read(_ bytes: [UInt8], path: String, indexes: [IndexDefinition] = []) async throws(JournalError) -> SnapshotContents {
        try await read(SnapshotSource(bytes: bytes), path: path, indexes: indexes)
    }

    /// Parses the snapshot that `source` reads, at `path`, into tables that keep `indexes` (already valid).
    /// A first pass checks the trailer, checksum, header and line structure (``SnapshotLayout/check(_:path:blocks:)``,
    /// on two cores for a large file). A second parses the items, checking every line as the JSON reader checks a
    /// document, and stores each packed (``ItemTable/load(packed:key:hash:held:)``); only the id and the indexed
    /// values are decoded. The lines of a block are parsed on every core while those of the block before are stored
    /// in the tables (which is sequential), so two blocks are read in turn. A sealed snapshot, whose every read is
    /// authenticated, is read once: the first pass's checks are made on the blocks as they are parsed
    /// (``SnapshotStreamCheck``), and the tables built are dropped when a check fails.
    /// - Throws: ``JournalError/invalidSnapshot(file:offset:reason:)`` or ``JournalError/unsupportedFormat(file:version:)``.
    static func read(_ source: SnapshotSource, path: String, indexes: [IndexDefinition] = []) async throws(JournalError) -> SnapshotContents {
        let blocks = [SnapshotBlock(capacity: SnapshotSource.blockBytes), SnapshotBlock(capacity: SnapshotSource.blockBytes)]
        var stream: SnapshotStreamCheck?
        var layout: SnapshotLayout?
        if source.isAuthenticated {
            stream = try SnapshotStreamCheck(source, path: path)
        } else {
            layout = try await SnapshotLayout.check(source, path: path, blocks: (blocks[0], blocks[1]))
        }
        let trailerStart = stream?.trailerStart ?? layout?.trailerStart ?? 0
        // In one pass, the header's figures replace these once the first block is checked.
        var contents = layout?.contents ?? SnapshotContents(generation: 0, lastSequence: 0, itemCount: 0)
        var splitter = LineRuns()
        var parsing: [ParsingRun] = []
        defer { for run in parsing { run.task.cancel() } }
        var loader = RunLoader(path: path)
        do throws(JournalError) {
            if layout != nil { try define(indexes, in: &contents.tables) }
            var offset = 0, turn = 0
            while offset < trailerStart {
                let block = blocks[turn % 2]
                turn += 1
                try source.read(into: block, from: offset, upTo: trailerStart)
                if stream != nil {
                    try stream?.take(block, at: offset)
                    if offset == 0 {
                        guard let header = stream?.header else { throw invalid(path, 0, "no header line") }
                        contents = header
                        try define(indexes, in: &contents.tables)
                    }
                }
                let runs = block.withUnsafeBytes { splitter.runs(in: $0) }
                var started: [ParsingRun] = []
                for run in runs {
                    let name = splitter.names[run.table]
                    if run.isFirst, let first = run.lines.first {
                        block.withUnsafeBytes { contents.tables.adoptShape(table: name, learnedFrom: UnsafeRawBufferPointer(rebasing: $0[first])) }
                    }
                    let expected = layout?.tables[run.table].count
                        ?? Self.estimatedCount(of: run, at: offset, before: trailerStart, announced: contents.itemCount)
                    started.append(ParsingRun(run: run, name: name, expected: expected, start: offset,
                                              task: parse(run.lines, of: block, table: name, tables: contents.tables)))
                }
                // The block before was parsed meanwhile: store it while this one is parsed.
                for run in parsing { try await loader.store(run, into: &contents.tables) }
                parsing = started
                offset += block.count
            }
            for run in parsing { try await loader.store(run, into: &contents.tables) }
            parsing = []
            if let stream { _ = try stream.layout() }
        } catch {
            guard var check = stream else { throw error }
            throw check.failure(error, source: source)
        }
        return contents
    }

    private static func define(_ indexes: [IndexDefinition], in tables: inout TableSet) throws(JournalError) {
        do { try tables.defineIndexes(indexes) } catch { throw JournalError.invalidIndex(error) }
    }

    /// How many items the table of `run` (its first run, read in one pass) likely holds, to reserve room for them:
    /// exactly its lines when the table ends in the block, otherwise as many lines of their average length as the
    /// rest of the file holds, at most the header's count.
    private static func estimatedCount(of run: LineRun, at offset: Int, before trailerStart: Int, announced: Int) -> Int {
        guard !run.ends, let first = run.lines.first, let last = run.lines.last else { return run.lines.count }
        let average = max(1, (last.upperBound - first.lowerBound) / run.lines.count)
        return min(announced, (trailerStart - offset - first.lowerBound) / average + 1)
    }

    /// Starts parsing `lines` of `block`, item lines of `table` (whose shape and indexes `tables` holds).
    private static func parse(_ lines: [Range<Int>], of block: SnapshotBlock, table: String, tables: TableSet) -> Task<[ParsedLine], Never> {
        let shape = tables.shape(table: table)
        var keys = shape?.keys ?? []
        func position(_ key: String) -> Int {
            if let found = keys.firstIndex(of: key) { return found }
            keys.append(key)
            return keys.count - 1
        }
        let id = position("id")
        let fields = tables.indexFields(table: table).map { $0.map(position) }
        return Task { [keys] in
            await ParallelLines.map(lines, of: block, state: { LineParser(keys: keys, shape: shape, id: id, fields: fields) }) {
                $0.parse($1)
            }
        }
    }

    /// The item lines of one table in one block, and where the table starts and ends among them.
    private struct LineRun {
        /// The table's position in ``SnapshotLayout/tables``.
        var table: Int
        var lines: [Range<Int>] = []
        /// Whether the table's first item line is among them (the first run of the table).
        var isFirst: Bool
        /// Whether the table's closing line followed them.
        var ends = false
    }

    /// A run whose lines are being parsed; its lines lie at `start` plus their ranges in the file. `expected` is
    /// how many items its table holds, known or estimated (room is reserved for them with its first run).
    private struct ParsingRun {
        var run: LineRun
        var name: String
        var expected: Int
        var start: Int
        var task: Task<[ParsedLine], Never>
    }

    /// Splits blocks of a snapshot's lines into the runs of item lines of each table, following the tables from
    /// one block to the next.
    private struct LineRuns {
        private var isHeaderRead = false
        /// The names of the tables seen, in file order.
        private(set) var names: [String] = []
        /// The table whose item lines come, and whether none of them came yet; nil between tables.
        private var open: (table: Int, isFirst: Bool)?

        mutating func runs(in raw: UnsafeRawBufferPointer) -> [LineRun] {
            var runs: [LineRun] = []
            var current = open.map { LineRun(table: $0.table, isFirst: $0.isFirst) }
            var lineStart = 0
            while lineStart < raw.count {
                let newline = JournalScan.newline(in: raw, from: lineStart) ?? raw.count
                if !isHeaderRead {
                    isHeaderRead = true
                } else if current != nil {
                    if SnapshotLayout.closesTable(UnsafeRawBufferPointer(rebasing: raw[lineStart..<newline])) {
                        current?.ends = true
                        if let run = current { runs.append(run) }
                        current = nil
                    } else {
                        // In place: a copy would make every append copy the lines.
                        current?.lines.append(lineStart..<newline)
                    }
                } else {
                    // A table line: checked before (its name is a JSON string).
                    names.append(SnapshotLayout.tableName(UnsafeRawBufferPointer(rebasing: raw[lineStart..<newline])) ?? "")
                    current = LineRun(table: names.count - 1, isFirst: true)
                }
                lineStart = newline + 1
            }
            if let run = current {
                if !run.lines.isEmpty { runs.append(run) }
                open = (run.table, run.isFirst && run.lines.isEmpty)
            } else {
                open = nil
            }
            return runs
        }
    }

    /// Stores parsed runs in the tables, in file order.
    private struct RunLoader {
        let path: String
        var replacedAny = false

        mutating func store(_ parsing: ParsingRun, into tables: inout TableSet) async throws(JournalError) {
            let parsed = await parsing.task.value
            let run = parsing.run
            let name = parsing.name
            var loaded: [LoadedItem] = []
            loaded.reserveCapacity(parsed.count)
            for (range, line) in zip(run.lines, parsed) {
                switch line {
                case .invalid: throw invalid(path, parsing.start + range.lowerBound, "the line is not one JSON object")
                case .withoutID: continue
                case .item(let item): loaded.append(item)
                }
            }
            if run.isFirst {
                replacedAny = false
                if !run.lines.isEmpty { tables.reserve(table: name, items: parsing.expected, sample: loaded.first) }
            }
            replacedAny = tables.load(loaded, table: name) || replacedAny
            if run.ends { tables.finishLoading(table: name, replacedAny: replacedAny) }
        }
    }

    /// Parses item lines into ``LoadedItem``s. Each parsing task makes its own (``ParallelLines``' state), holding
    /// its own copies of the keys, shape and fields: the parsing loop retains and releases them, and a count shared
    /// by two cores would bounce between their caches at every line.
    private struct LineParser {
        /// The members to read: the shape's keys, then the id and every indexed field not among them.
        let keys: [String]
        let shape: JSONObjectShape?
        /// The id's position among `keys`.
        let id: Int
        /// The positions among `keys` of each index's fields.
        let fields: [[Int]]
        /// One index's encoded values, reused from line to line.
        private var encoded: [UInt8] = []

        init(keys: [String], shape: JSONObjectShape?, id: Int, fields: [[Int]]) {
            let ownKeys = keys.map { String(decoding: Array($0.utf8), as: UTF8.self) }
            self.keys = ownKeys
            self.shape = shape.map { JSONObjectShape(keys: Array(ownKeys.prefix($0.keys.count))) ?? $0 }
            self.id = id
            self.fields = fields.map { $0.map { $0 } }
        }

        /// One item line's id key, packed form and encoded index values, in one buffer (``LoadedItem``).
        mutating func parse(_ line: UnsafeRawBufferPointer) -> ParsedLine {
            let end = line.last == UInt8(ascii: ",") ? line.count - 1 : line.count
            let text = UnsafeRawBufferPointer(rebasing: line[0..<end]).assumingMemoryBound(to: UInt8.self)
            var members = 0
            guard case .success(let ranges) = JSONReader.skimObject(text, keys: keys, memberCount: &members) else { return .invalid }
            guard let idRange = ranges[id] else { return .withoutID }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(text.count)
            guard SnapshotReader.appendKey(of: UnsafeBufferPointer(rebasing: text[idRange]), to: &bytes) else { return .withoutID }
            let keyLength = bytes.count
            let shapeRanges = ranges[0..<(shape?.keys.count ?? 0)]
            PackedObject.append(json: text, ranges: shapeRanges, memberCount: members, shape: shape, to: &bytes)
            let packedLength = bytes.count - keyLength
            for list in fields {
                encoded.removeAll(keepingCapacity: true)
                for position in list {
                    if let range = ranges[position] {
                        OrderedKey.append(json: UnsafeBufferPointer(rebasing: text[range]), to: &encoded)
                    } else {
                        OrderedKey.append(.null, to: &encoded)
                    }
                }
                LoadedItem.appendIndexValues(encoded, to: &bytes)
            }
            return .item(LoadedItem(bytes: bytes, keyLength: keyLength, packedLength: packedLength))
        }
    }

    /// Appends the key (``ItemID/key(_:)``) of the id whose JSON text is `json`; false when it is not a string. A
    /// printable-ASCII id without escapes is lower-cased straight from its bytes.
    private static func appendKey(of json: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) -> Bool {
        guard json.count >= 2, json[0] == UInt8(ascii: "\"") else { return false }
        let start = bytes.count
        bytes.append(contentsOf: json[1..<(json.count - 1)])
        let isPlain = bytes.withUnsafeMutableBufferPointer { key in
            for position in start..<key.count {
                let byte = key[position]
                guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return false }
                key[position] = byte &- 0x41 < 26 ? byte | 0x20 : byte
            }
            return true
        }
        if isPlain { return true }
        bytes.removeLast(bytes.count - start)
        guard case .success(.string(let id)) = JSONReader.result(json) else { return false }
        bytes.append(contentsOf: ItemID.key(id).utf8)
        return true
    }

    /// One item line, parsed.
    private enum ParsedLine: Sendable {
        case item(LoadedItem)
        case withoutID
        case invalid
    }

    /// The figures of the snapshot's header line alone (no item read, no table built), for a store that loads the
    /// snapshot later.
    static func header(_ source: SnapshotSource, path: String) throws(JournalError) -> SnapshotContents {
        var length = 4_096
        while true {
            let bytes = try source.read(0..<min(length, source.count))
            if let newline = bytes.firstIndex(of: 0x0A) {
                let header: Result<SnapshotContents, JournalError> = bytes.withUnsafeBytes { raw in
                    Result { () throws(JournalError) in try SnapshotLayout.header(UnsafeRawBufferPointer(rebasing: raw[0..<newline]), path: path) }
                }
                return try header.get()
            }
            guard length < source.count else { throw invalid(path, 0, "no header line") }
            length *= 2
        }
    }

    static func invalid(_ path: String, _ offset: Int, _ reason: String) -> JournalError {
        .invalidSnapshot(file: path, offset: Int64(offset), reason: reason)
    }
}
