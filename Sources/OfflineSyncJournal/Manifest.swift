import OfflineSyncCore
import OfflineSyncStore
/// The manifest (`CURRENT`): which snapshot and which journals make up the store, oldest journal first.
///
/// One checksummed line: `{"c":"<crc>","format":1,"snapshot":<generation>|null,"journals":[<generation>,…]}\n`.
struct Manifest: Sendable, Hashable {
    /// The generation of the base snapshot, or nil when the store starts empty.
    var snapshot: Int64?
    /// The journals replayed after the snapshot, in order; the last one receives new records. Never empty.
    var journals: [Int64]

    /// The current generation: that of the journal receiving new records.
    var generation: Int64 { journals.last ?? 0 }

    /// The manifest's line, newline included.
    var line: [UInt8] {
        var buffer: [UInt8] = []
        LineFraming.begin(&buffer)
        let snapshotText = snapshot.map { String($0) } ?? "null"
        let journalText = journals.map { String($0) }.joined(separator: ",")
        buffer.append(contentsOf: #""format":\#(JournalRecord.formatVersion),"snapshot":\#(snapshotText),"journals":[\#(journalText)]}"#.utf8)
        LineFraming.seal(&buffer, lineStart: 0)
        return buffer
    }

    /// Reads and checks the manifest at `path`.
    /// - Throws: ``JournalError/invalidManifest(file:reason:)``, ``JournalError/unsupportedFormat(file:version:)``.
    static func read(_ path: String, fileSystem: any FileSystem) throws(JournalError) -> Manifest {
        let bytes = try fileSystem.readFile(path)
        guard let last = bytes.last, last == 0x0A, !bytes.dropLast().contains(0x0A) else {
            throw JournalError.invalidManifest(file: path, reason: "it is not exactly one line ending with a newline")
        }
        let parsed: Result<JSONValue, JournalError> = bytes.withUnsafeBytes { raw in
            let line = UnsafeRawBufferPointer(rebasing: raw[0..<(raw.count - 1)])
            if let problem = LineFraming.problem(in: line) { return .failure(.invalidManifest(file: path, reason: problem)) }
            return JSONReader.result(line.assumingMemoryBound(to: UInt8.self))
                .mapError { JournalError.invalidManifest(file: path, reason: $0.description) }
        }
        guard case .object(let object) = try parsed.get(), case .int(let format)? = object["format"] else {
            throw JournalError.invalidManifest(file: path, reason: "it has no format version")
        }
        guard format == JournalRecord.formatVersion else { throw JournalError.unsupportedFormat(file: path, version: format) }
        var manifest = Manifest(snapshot: nil, journals: [])
        switch object["snapshot"] {
        case .int(let generation)?: manifest.snapshot = generation
        case .null?: manifest.snapshot = nil
        default: throw JournalError.invalidManifest(file: path, reason: "\"snapshot\" is not a generation number or null")
        }
        guard case .array(let journals)? = object["journals"], !journals.isEmpty else {
            throw JournalError.invalidManifest(file: path, reason: "\"journals\" is not a non-empty array")
        }
        for journal in journals {
            let minimum = manifest.journals.last.map { $0 + 1 } ?? max(manifest.snapshot ?? 1, 1)
            guard case .int(let generation) = journal, generation >= minimum else {
                throw JournalError.invalidManifest(file: path, reason: "\"journals\" must hold increasing generations, the first at least the snapshot's")
            }
            manifest.journals.append(generation)
        }
        return manifest
    }

    /// Replaces the manifest atomically: writes `CURRENT.tmp`, syncs it, renames it over `CURRENT`, syncs the
    /// directory.
    func write(_ layout: StoreLayout, fileSystem: any FileSystem) throws(JournalError) {
        try fileSystem.writeNewFile(layout.manifestTemporaryPath, line)
        try fileSystem.rename(layout.manifestTemporaryPath, to: layout.manifestPath)
        try fileSystem.syncDirectory(layout.directory)
    }
}
