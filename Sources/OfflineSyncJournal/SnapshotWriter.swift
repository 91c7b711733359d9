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

    /// Streams `tables` into the new file `path` (mode 0600) and syncs it; returns the file size. With `sealing` the
    /// file is a ``SealedSnapshotFile`` of the same plaintext.
    /// Does not rename it: the caller renames it into place and syncs the directory.
    static func write(_ tables: TableSet, generation: Int64, lastSequence: Int64, to path: String,
                      sealing: JournalSealing? = nil, fileSystem: any FileSystem) throws(JournalError) -> Int64 {
        if fileSystem.fileExists(path) { try fileSystem.remove(path) }
        let file = try fileSystem.open(path, mode: .createNew)
        defer { fileSystem.close(file) }
        let names = tables.tableNames
        let itemCount = tables.itemCount
        var output = Output()
        var crc: UInt32 = 0
        var sink = SealedSnapshotFile.Sink(file: file, fileSystem: fileSystem, sealing: sealing, generation: generation)
        func flush() throws(JournalError) {
            try output.withBytes { (bytes) throws(JournalError) in
                crc = CRC32C.checksum(bytes, continuing: crc)
                try sink.write(bytes)
            }
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
            try tables.forEachItemText(table: name) { (text) throws(JournalError) in
                let separator = output.count
                if !first { output.append(",\n".utf8) }
                // An item whose bytes are not a packed object is left out, as a free slot is.
                guard output.append(text) else { return output.count = separator }
                first = false
                if output.count >= writeBytes { try flush() }
            }
            output.append((tableIndex == names.count - 1 ? "\n]\n" : "\n],\n").utf8)
        }
        try flush()
        output.append(trailerOpening.utf8)
        output.append(LineFraming.hex(crc).utf8)
        output.append("\"}\n".utf8)
        try output.withBytes { (bytes) throws(JournalError) in try sink.write(bytes) }
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
