import OfflineSyncCore
import OfflineSyncStore
/// A plaintext snapshot read through its lookup file (``SnapshotLookupFile``) before it is loaded: an item found by
/// its id, an index walked (``PersistedIndexQuery``), each reading only the pages and item lines it needs.
///
/// Nothing read is trusted unchecked: each page of the lookup file is checked against its CRC-32C the first time it
/// is read, each item line against the CRC-32C its location names, and an item found by its id must have that id.
/// Any check that fails throws ``Fault``: the caller then waits for the snapshot to be loaded, which checks the whole
/// file and reports damage as it always does. The lookup file itself names the snapshot it describes (generation,
/// size, checksum) and the version of the id keys it hashed (``ItemID/keyVersion``), so a stale one is never used.
struct SnapshotLookup: Sendable {
    /// A check failed: the lookup cannot answer, the loaded snapshot will.
    struct Fault: Error {
        var reason: String
    }

    let generation: Int64
    private let tables: [String: SnapshotLookupFile.Table]
    private let file: OwnedFile
    /// The snapshot's descriptor, held while its lines are read.
    private let snapshotFile: OwnedFile
    private let snapshot: SnapshotSource
    private let firstPageOffset: Int
    private let fileSystem: any FileSystem
    /// The pages read and checked so far, by number.
    private var pages: [Int: [UInt8]] = [:]
    /// At most this many pages are kept (16 MiB); beyond, the cache starts over.
    static let cachedPages = 4_096

    /// The lookup file at `path` of the snapshot of `generation`, open as `snapshotFile`, `snapshotBytes` long, whose
    /// last line holds `snapshotCRC`; nil when the file is missing, damaged, describes another snapshot, or hashed its
    /// ids' keys with another ``ItemID/keyVersion`` than this build's (or names none).
    static func open(_ path: String, generation: Int64, snapshotFile: OwnedFile, snapshotPath: String, snapshotBytes: Int,
                     snapshotCRC: UInt32, fileSystem: any FileSystem) -> SnapshotLookup? {
        guard let descriptor = try? fileSystem.open(path, mode: .readOnly) else { return nil }
        let file = OwnedFile(descriptor, fileSystem: fileSystem)
        let source = SnapshotSource(file: descriptor, path: path, count: Int((try? fileSystem.size(descriptor)) ?? 0), fileSystem: fileSystem)
        var length = min(SnapshotLookupFile.pageBytes, source.count)
        var header: [UInt8] = []
        while true {
            guard length > 0, let read = try? source.read(0..<length) else { return nil }
            if let newline = read.firstIndex(of: 0x0A) {
                header = Array(read[0..<newline])
                break
            }
            guard length < source.count else { return nil }
            length = min(length * 2, source.count)
        }
        let parsed: JSONValue? = header.withUnsafeBytes { raw in
            guard LineFraming.problem(in: raw) == nil else { return nil }
            return try? JSONReader.result(raw.assumingMemoryBound(to: UInt8.self)).get()
        }
        // Ids hashed with another key version (or a file from before the field) could be missed: not used.
        guard case .object(let object)? = parsed, object["lookup"] == .int(SnapshotLookupFile.formatVersion),
              object["keys"] == .string(ItemID.keyVersion),
              object["generation"] == .int(generation), object["snapshotBytes"] == .int(Int64(snapshotBytes)),
              object["snapshotCRC"] == .string(LineFraming.hex(snapshotCRC)),
              object["pageBytes"] == .int(Int64(SnapshotLookupFile.pageBytes)),
              case .array(let tableValues)? = object["tables"]
        else { return nil }
        var tables: [String: SnapshotLookupFile.Table] = [:]
        for value in tableValues {
            guard let table = Self.table(value) else { return nil }
            tables[table.name] = table
        }
        // The header line and its newline, padded to whole pages.
        let pagesStart = (header.count + SnapshotLookupFile.pageBytes) / SnapshotLookupFile.pageBytes * SnapshotLookupFile.pageBytes
        let pageCount = tables.values.flatMap { [$0.locations, $0.ids] + $0.indexes.map(\.section) }
            .map { $0.firstPage + $0.pageCount }.max() ?? 0
        guard source.count == pagesStart + pageCount * SnapshotLookupFile.pageBytes else { return nil }
        return SnapshotLookup(generation: generation, tables: tables, file: file,
                              snapshot: SnapshotSource(file: snapshotFile.file, path: snapshotPath, count: snapshotBytes, fileSystem: fileSystem),
                              firstPageOffset: pagesStart, fileSystem: fileSystem, snapshotFile: snapshotFile)
    }

    private init(generation: Int64, tables: [String: SnapshotLookupFile.Table], file: OwnedFile, snapshot: SnapshotSource,
                 firstPageOffset: Int, fileSystem: any FileSystem, snapshotFile: OwnedFile) {
        self.generation = generation
        self.tables = tables
        self.file = file
        self.snapshot = snapshot
        self.firstPageOffset = firstPageOffset
        self.fileSystem = fileSystem
        self.snapshotFile = snapshotFile
    }

    /// One table of the header: `{"name":…,"locations":[page,count],"ids":[page,count],"indexes":[{"fields":[…],"ordinals":[page,count]}]}`.
    private static func table(_ value: JSONValue) -> SnapshotLookupFile.Table? {
        func section(_ value: JSONValue?, recordSize: Int) -> SnapshotLookupFile.Section? {
            guard case .array(let parts)? = value, parts.count == 2, case .int(let page) = parts[0], case .int(let count) = parts[1],
                  page >= 0, count >= 0 else { return nil }
            return SnapshotLookupFile.Section(firstPage: Int(page), recordSize: recordSize, count: Int(count))
        }
        guard case .object(let object) = value, case .string(let name)? = object["name"],
              let locations = section(object["locations"], recordSize: 16), let ids = section(object["ids"], recordSize: 12),
              ids.count == locations.count, case .array(let indexValues)? = object["indexes"]
        else { return nil }
        var indexes: [(fields: [String], section: SnapshotLookupFile.Section)] = []
        for indexValue in indexValues {
            guard case .object(let index) = indexValue, case .array(let fieldValues)? = index["fields"],
                  let ordinals = section(index["ordinals"], recordSize: 4), ordinals.count == locations.count
            else { return nil }
            let fields = fieldValues.compactMap(\.stringValue)
            guard fields.count == fieldValues.count, !fields.isEmpty else { return nil }
            indexes.append((fields, ordinals))
        }
        return SnapshotLookupFile.Table(name: name, locations: locations, ids: ids, indexes: indexes)
    }

    // MARK: Reading

    /// The item of `table` whose id key (``ItemID/key(_:)``) is `key`, or nil when the snapshot holds none.
    mutating func item(table name: String, key: String) throws(Fault) -> JSONObject? {
        guard let table = tables[name] else { return nil }
        let hash = TableLookupEntries.hash(ofKey: key)
        var low = 0, high = table.ids.count
        while low < high {
            let middle = (low + high) / 2
            if try idRecord(table, middle).hash < hash { low = middle + 1 } else { high = middle }
        }
        while low < table.ids.count {
            let record = try idRecord(table, low)
            guard record.hash == hash else { break }
            let item = try item(table, ordinal: Int(record.ordinal))
            if case .string(let id)? = item["id"], ItemID.key(id) == key { return item }
            low += 1
        }
        return nil
    }

    /// The answer to `query` walking one of its table's indexes, or nil when none serves it, or when the walk would
    /// read more than `budget` items.
    mutating func answer(_ query: Query, budget: Int) throws(Fault) -> QueryResult? {
        guard let table = tables[query.table] else { return nil }
        let definitions = table.indexes.map { IndexDefinition(table: query.table, fields: $0.fields) }
        guard let walk = PersistedIndexQuery(query, definitions: definitions) else { return nil }
        let section = table.indexes[walk.index].section
        return try walk.answer(count: section.count, budget: budget) { (position) throws(Fault) in
            let ordinal = try record(section, position) { SnapshotLookupFile.readUInt32($0, at: $1) }
            return try item(table, ordinal: Int(ordinal))
        }
    }

    /// The item line `ordinal` of `table`, checked and parsed.
    private mutating func item(_ table: SnapshotLookupFile.Table, ordinal: Int) throws(Fault) -> JSONObject {
        guard ordinal < table.locations.count else { throw Fault(reason: "an ordinal beyond the table's items") }
        let location = try record(table.locations, ordinal) { bytes, offset in
            SnapshotLookupFile.Location(offset: Int(SnapshotLookupFile.readUInt64(bytes, at: offset)),
                                        length: Int(SnapshotLookupFile.readUInt32(bytes, at: offset + 8)),
                                        crc: SnapshotLookupFile.readUInt32(bytes, at: offset + 12))
        }
        guard location.length > 0, location.offset >= 0, location.offset + location.length <= snapshot.count else {
            throw Fault(reason: "an item line beyond the snapshot")
        }
        let line: [UInt8]
        do { line = try snapshot.read(location.offset..<(location.offset + location.length)) } catch {
            throw Fault(reason: error.description)
        }
        let parsed: JSONValue? = line.withUnsafeBytes { raw in
            guard CRC32C.checksum(raw) == location.crc else { return nil }
            return try? JSONReader.result(raw.assumingMemoryBound(to: UInt8.self)).get()
        }
        guard case .object(let item)? = parsed, item["id"]?.stringValue != nil else {
            throw Fault(reason: "an item line does not match its checksum")
        }
        return item
    }

    private mutating func idRecord(_ table: SnapshotLookupFile.Table, _ position: Int) throws(Fault) -> (hash: UInt64, ordinal: UInt32) {
        try record(table.ids, position) { bytes, offset in
            (SnapshotLookupFile.readUInt64(bytes, at: offset), SnapshotLookupFile.readUInt32(bytes, at: offset + 8))
        }
    }

    /// Record `position` of `section`, read by `read` from its page's bytes at its offset.
    private mutating func record<Value>(_ section: SnapshotLookupFile.Section, _ position: Int,
                                        _ read: (UnsafeRawBufferPointer, Int) -> Value) throws(Fault) -> Value {
        guard position >= 0, position < section.count else { throw Fault(reason: "a record beyond its section") }
        let page = try page(section.firstPage + position / section.recordsPerPage)
        return page.withUnsafeBytes { read($0, position % section.recordsPerPage * section.recordSize) }
    }

    /// Page `number`, checked against its CRC-32C the first time it is read.
    private mutating func page(_ number: Int) throws(Fault) -> [UInt8] {
        if let page = pages[number] { return page }
        let offset = firstPageOffset + number * SnapshotLookupFile.pageBytes
        var bytes = [UInt8](repeating: 0, count: SnapshotLookupFile.pageBytes)
        let read = try? bytes.withUnsafeMutableBytes { buffer throws(JournalError) in
            try BlockingFileWork.runInPlace { () throws(JournalError) in try fileSystem.read(file.file, into: buffer, at: Int64(offset)) }
        }
        let matches = bytes.withUnsafeBytes { raw in
            CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<SnapshotLookupFile.recordBytes]))
                == SnapshotLookupFile.readUInt32(raw, at: SnapshotLookupFile.recordBytes)
        }
        guard read == SnapshotLookupFile.pageBytes, matches else { throw Fault(reason: "page \(number) of the lookup file is damaged") }
        if pages.count >= Self.cachedPages { pages.removeAll(keepingCapacity: true) }
        pages[number] = bytes
        return bytes
    }
}
