/// Writes a snapshot file: one valid JSON document, one item per line (Docs/JournalFormat.md, "Snapshot").
///
/// ```
/// {"snapshot":{"format":1,"generation":3,"lastSequence":120,"items":2},"tables":{
/// "TodoItem":[
/// {"id":"a","text":"milk"},
/// {"id":"b","text":"eggs"}
/// ]
/// },"crc32c":"0123abcd"}
/// ```
/// The checksum covers every byte before the last line.
enum SnapshotWriter {
    /// The first line's fixed opening and closing around the metadata object.
    static let headerOpening = #"{"snapshot":"#
    static let headerClosing = #","tables":{"#
    static let trailerOpening = #"},"crc32c":""#

    /// Streams `tables` into the new file `path` (mode 0600) and syncs it; returns the file size.
    /// Does not rename it: the caller renames it into place and syncs the directory.
    static func write(_ tables: TableSet, generation: Int64, lastSequence: Int64, to path: String,
                      fileSystem: any FileSystem) throws(JournalError) -> Int64 {
        if fileSystem.fileExists(path) { try fileSystem.remove(path) }
        let file = try fileSystem.open(path, mode: .createNew)
        defer { fileSystem.close(file) }
        let names = tables.tableNames
        let itemCount = names.reduce(0) { $0 + tables.count(table: $1) }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        var crc: UInt32 = 0
        var offset: Int64 = 0
        func flush() throws(JournalError) {
            crc = CRC32C.checksum(buffer, continuing: crc)
            try fileSystem.writeAll(file, buffer, at: offset)
            offset += Int64(buffer.count)
            buffer.removeAll(keepingCapacity: true)
        }
        buffer.append(contentsOf: headerOpening.utf8)
        buffer.append(contentsOf: #"{"format":\#(JournalRecord.formatVersion),"generation":\#(generation),"lastSequence":\#(lastSequence),"items":\#(itemCount)}"#.utf8)
        buffer.append(contentsOf: headerClosing.utf8)
        buffer.append(0x0A)
        let writer = JSONWriter()
        for (tableIndex, name) in names.enumerated() {
            writer.writeString(name, into: &buffer)
            buffer.append(contentsOf: ":[\n".utf8)
            var first = true
            try tables.forEachItemText(table: name) { (text) throws(JournalError) in
                if !first { buffer.append(contentsOf: ",\n".utf8) }
                first = false
                buffer.append(contentsOf: text)
                if buffer.count >= 1 << 20 { try flush() }
            }
            buffer.append(contentsOf: (tableIndex == names.count - 1 ? "\n]\n" : "\n],\n").utf8)
        }
        try flush()
        buffer.append(contentsOf: trailerOpening.utf8)
        buffer.append(contentsOf: LineFraming.hex(crc).utf8)
        buffer.append(contentsOf: "\"}\n".utf8)
        try fileSystem.writeAll(file, buffer, at: offset)
        offset += Int64(buffer.count)
        try fileSystem.sync(file)
        return offset
    }
}
