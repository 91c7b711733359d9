import OfflineSyncCore
import OfflineSyncStore
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

    /// How many bytes are gathered before each write.
    static let writeBytes = 1 << 20

    /// Where each item line of a written snapshot lies, per table, with the slot it was written from: what its
    /// lookup file is made of (``SnapshotLookupFile``).
    struct WrittenLines: Sendable {
        var tables: [(name: String, locations: [SnapshotLookupFile.Location], slots: [Int32])] = []
        /// The checksum in the snapshot's last line.
        var crc: UInt32 = 0
    }

    /// Streams `tables` into the new file `path` (mode 0600) and syncs it; returns the file size. With `sealing` the
    /// file is a ``SealedSnapshotFile`` of the same plaintext.
    /// Does not rename it: the caller renames it into place and syncs the directory.
    static func write(_ tables: TableSet, generation: Int64, lastSequence: Int64, to path: String,
                      sealing: JournalSealing? = nil, fileSystem: any FileSystem) throws(JournalError) -> Int64 {
        var lines: WrittenLines?
        return try write(tables, generation: generation, lastSequence: lastSequence, to: path, sealing: sealing,
                         fileSystem: fileSystem, lines: &lines)
    }

    /// ``write(_:generation:lastSequence:to:sealing:fileSystem:)``, noting in `lines`, unless it is nil, where each
    /// item line lies in the file.
    static func write(_ tables: TableSet, generation: Int64, lastSequence: Int64, to path: String,
                      sealing: JournalSealing?, fileSystem: any FileSystem, lines: inout WrittenLines?) throws(JournalError) -> Int64 {
        if fileSystem.fileExists(path) { try fileSystem.remove(path) }
        let file = try fileSystem.open(path, mode: .createNew)
        defer { fileSystem.close(file) }
        let names = tables.tableNames
        let itemCount = tables.itemCount
        var output = Output()
        var crc: UInt32 = 0
        var flushed = 0
        var sink = SealedSnapshotFile.Sink(file: file, fileSystem: fileSystem, sealing: sealing, generation: generation)
        func flush() throws(JournalError) {
            try output.withBytes { (bytes) throws(JournalError) in
                crc = CRC32C.checksum(bytes, continuing: crc)
                try sink.write(bytes)
            }
            flushed += output.count
            output.count = 0
        }
        output.append(headerOpening.utf8)
        output.append(#"{"format":\#(JournalRecord.formatVersion),"generation":\#(generation),"lastSequence":\#(lastSequence),"items":\#(itemCount)}"#.utf8)
        output.append(headerClosing.utf8)
        output.append(CollectionOfOne(0x0A))
        for (tableIndex, name) in names.enumerated() {
            var nameText: [UInt8] = []
            JSONWriter().writeString(name, into: &nameText)
            output.append(nameText)
            output.append(":[\n".utf8)
            var first = true
            var locations: [SnapshotLookupFile.Location] = [], slots: [Int32] = []
            try tables.forEachItemText(table: name) { (slot, text) throws(JournalError) in
                let separator = output.count
                if !first { output.append(",\n".utf8) }
                let start = output.count
                // An item whose bytes are not a packed object is left out, as a free slot is.
                guard output.append(text) else { return output.count = separator }
                first = false
                if lines != nil {
                    let length = output.count - start
                    locations.append(SnapshotLookupFile.Location(offset: flushed + start, length: length,
                                                                 crc: output.checksum(from: start)))
                    slots.append(slot)
                }
                if output.count >= writeBytes { try flush() }
            }
            lines?.tables.append((name, locations, slots))
            output.append((tableIndex == names.count - 1 ? "\n]\n" : "\n],\n").utf8)
        }
        try flush()
        output.append(trailerOpening.utf8)
        output.append(LineFraming.hex(crc).utf8)
        output.append("\"}\n".utf8)
        try output.withBytes { (bytes) throws(JournalError) in try sink.write(bytes) }
        lines?.crc = crc
        let size = try sink.finish()
        try fileSystem.sync(file)
        return size
    }

    /// The bytes gathered for the next write: the first `count` bytes of a buffer allocated once, so that each
    /// item's text is written straight into it from the item's packed form.
    private struct Output {
        private var storage = [UInt8](repeating: 0, count: SnapshotWriter.writeBytes + (64 << 10))
        var count = 0

        mutating func append(_ bytes: some Collection<UInt8>) {
            makeRoom(for: bytes.count)
            storage.withUnsafeMutableBufferPointer { count += $0[count...].initialize(fromContentsOf: bytes) - count }
        }

        /// Appends `text`; false, appending nothing, when the item's bytes are not a packed object.
        mutating func append(_ text: ItemText) -> Bool {
            makeRoom(for: text.lengthBound)
            guard let written = storage.withUnsafeMutableBufferPointer({ text.write(to: UnsafeMutableBufferPointer(rebasing: $0[count...])) }) else {
                return false
            }
            count += written
            return true
        }

        /// The CRC-32C of the bytes from `start` on.
        func checksum(from start: Int) -> UInt32 {
            storage.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[start..<count])) }
        }

        func withBytes<Failure: Error>(_ body: (UnsafeRawBufferPointer) throws(Failure) -> Void) throws(Failure) {
            let outcome: Result<Void, Failure> = storage.withUnsafeBytes { raw in
                do throws(Failure) { try body(UnsafeRawBufferPointer(rebasing: raw[0..<count])) } catch { return .failure(error) }
                return .success(())
            }
            try outcome.get()
        }

        private mutating func makeRoom(for length: Int) {
            if count + length > storage.count { storage.append(contentsOf: repeatElement(0, count: count + length - storage.count)) }
        }
    }
}
