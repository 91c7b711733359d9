import OfflineSyncCore
import OfflineSyncStore
/// The lookup file beside a plaintext snapshot, `snapshot.<G>.lookup` (Docs/JournalFormat.md, "Lookup file"): where
/// each item line lies in the snapshot, each item's id hashed, and each index's order, so that a store can answer a
/// point read or an index-served query before it has loaded the snapshot.
///
/// It starts with one checksummed line (``LineFraming``) naming what it describes, padded with zeros to a page, then
/// pages of ``pageBytes``: each page is ``recordBytes`` of fixed-size records, then the CRC-32C of those bytes
/// (4 bytes, little-endian). A record never straddles pages. Per table, three sections follow each other, each
/// starting on a new page:
/// - locations: per item line, in the snapshot's order, its offset (8 bytes) and length (4) in the snapshot, and the
///   CRC-32C of its bytes (4): 16 bytes;
/// - ids: the hash of each item's id key (8 bytes, ``TableLookupEntries/hash(ofKey:)``) and its ordinal (4), sorted by
///   hash then ordinal: 12 bytes;
/// - per index, the ordinals of the items in the index's order: 4 bytes each.
/// Every integer is little-endian. The header names the version of the id keys hashed (``ItemID/keyVersion``): the
/// key lower-cases with the standard library's Unicode data, so another build may key an id otherwise. The file is
/// derived data: a missing, damaged or stale one (another snapshot, another key version) only means the store loads
/// the snapshot before it answers.
enum SnapshotLookupFile {
    static let pageBytes = 4_096
    /// The record bytes of a page (the rest is its checksum).
    static let recordBytes = pageBytes - 4
    static let formatVersion: Int64 = 1

    /// One section: its first page, its record size and count.
    struct Section: Sendable, Equatable {
        var firstPage: Int
        var recordSize: Int
        var count: Int

        var recordsPerPage: Int { SnapshotLookupFile.recordBytes / recordSize }
        var pageCount: Int { (count + recordsPerPage - 1) / recordsPerPage }
    }

    /// What the lookup knows of one table.
    struct Table: Sendable {
        var name: String
        var locations: Section
        var ids: Section
        var indexes: [(fields: [String], section: Section)]
    }

    /// Where an item line lies in the snapshot.
    struct Location: Sendable, Equatable {
        var offset: Int
        var length: Int
        var crc: UInt32
    }

    /// The file's bytes for a snapshot of `snapshotBytes` bytes whose checksum is `snapshotCRC`, whose tables' item
    /// lines lie at `locations`, with each table's `entries`.
    static func bytes(generation: Int64, snapshotBytes: Int, snapshotCRC: UInt32,
                      tables: [(name: String, locations: [Location], entries: TableLookupEntries)]) -> [UInt8] {
        var described: [Table] = []
        var page = 0
        func section(_ recordSize: Int, _ count: Int) -> Section {
            let section = Section(firstPage: page, recordSize: recordSize, count: count)
            page += section.pageCount
            return section
        }
        for table in tables {
            let locations = section(16, table.locations.count)
            let ids = section(12, table.entries.ids.count)
            let indexes = table.entries.indexes.map { (fields: $0.definition.fields, section: section(4, $0.ordinals.count)) }
            described.append(Table(name: table.name, locations: locations, ids: ids, indexes: indexes))
        }
        var output = header(generation: generation, snapshotBytes: snapshotBytes, snapshotCRC: snapshotCRC, tables: described)
        output.reserveCapacity(output.count + page * pageBytes)
        for (table, layout) in zip(tables, described) {
            appendPages(table.locations, layout.locations, into: &output) { location, bytes in
                append(UInt64(location.offset), to: &bytes)
                append(UInt32(location.length), to: &bytes)
                append(location.crc, to: &bytes)
            }
            appendPages(table.entries.ids, layout.ids, into: &output) { id, bytes in
                append(id.hash, to: &bytes)
                append(id.ordinal, to: &bytes)
            }
            for (index, section) in zip(table.entries.indexes, layout.indexes.map(\.section)) {
                appendPages(index.ordinals, section, into: &output) { ordinal, bytes in append(ordinal, to: &bytes) }
            }
        }
        return output
    }

    /// The header line, then zeros to the end of its page (or pages).
    private static func header(generation: Int64, snapshotBytes: Int, snapshotCRC: UInt32, tables: [Table]) -> [UInt8] {
        func sectionValue(_ section: Section) -> JSONValue {
            .array([.int(Int64(section.firstPage)), .int(Int64(section.count))])
        }
        let tableValues: [JSONValue] = tables.map { table in
            .object(["name": .string(table.name), "locations": sectionValue(table.locations), "ids": sectionValue(table.ids),
                     "indexes": .array(table.indexes.map { index in
                         .object(["fields": .array(index.fields.map(JSONValue.string)), "ordinals": sectionValue(index.section)])
                     })])
        }
        var line: [UInt8] = []
        LineFraming.begin(&line)
        var body: [UInt8] = []
        JSONWriter().write(.object(["lookup": .int(formatVersion), "keys": .string(ItemID.keyVersion), "generation": .int(generation),
                                    "snapshotBytes": .int(Int64(snapshotBytes)), "snapshotCRC": .string(LineFraming.hex(snapshotCRC)),
                                    "pageBytes": .int(Int64(pageBytes)), "tables": .array(tableValues)]), into: &body)
        line.append(contentsOf: body.dropFirst())
        LineFraming.seal(&line, lineStart: 0)
        let padded = (line.count + pageBytes - 1) / pageBytes * pageBytes
        line.append(contentsOf: repeatElement(0, count: padded - line.count))
        return line
    }

    private static func appendPages<Record>(_ records: [Record], _ section: Section, into output: inout [UInt8],
                                            _ write: (Record, inout [UInt8]) -> Void) {
        var start = 0
        while start < records.count {
            let end = min(records.count, start + section.recordsPerPage)
            let pageStart = output.count
            for record in records[start..<end] { write(record, &output) }
            output.append(contentsOf: repeatElement(0, count: pageStart + recordBytes - output.count))
            let crc = output.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[pageStart..<output.count])) }
            append(crc, to: &output)
            start = end
        }
    }

    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    static func readUInt64(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << UInt64(8 * $1) }
    }

    static func readUInt32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << UInt32(8 * $1) }
    }
}
