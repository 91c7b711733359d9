import OfflineSyncCore
import OfflineSyncStore
/// The manifest (`CURRENT`): which snapshot and which journals make up the store, oldest journal first.
///
/// One checksummed line: `{"c":"<crc>","format":1,"snapshot":<generation>|null,"journals":[<generation>,…]}\n`,
/// with `,"cipher":{"key":"<key identifier>","check":"<base64>"}` before the closing brace in an encrypted store.
struct Manifest: Sendable, Hashable {
    /// What the manifest of an encrypted store says about its key.
    struct Encryption: Sendable, Hashable {
        /// The identifier of the key every sealed piece of the store is sealed with.
        var keyIdentifier: String
        /// ``JournalSealing/keyCheckText`` sealed under that key: opening it tells a right key from a wrong one
        /// before any file is touched.
        var keyCheck: [UInt8]

        /// The encryption of a store sealed by `sealing`, with a fresh key check.
        init(_ sealing: JournalSealing) throws(JournalError) {
            keyIdentifier = sealing.keyIdentifier
            keyCheck = try sealing.keyCheck()
        }

        init(keyIdentifier: String, keyCheck: [UInt8]) {
            self.keyIdentifier = keyIdentifier
            self.keyCheck = keyCheck
        }
    }

    /// The generation of the base snapshot, or nil when the store starts empty.
    var snapshot: Int64?
    /// The journals replayed after the snapshot, in order; the last one receives new records. Never empty.
    var journals: [Int64]
    /// The key of an encrypted store; nil for a plaintext one.
    var encryption: Encryption?

    init(snapshot: Int64?, journals: [Int64], encryption: Encryption? = nil) {
        self.snapshot = snapshot
        self.journals = journals
        self.encryption = encryption
    }

    /// The current generation: that of the journal receiving new records.
    var generation: Int64 { journals.last ?? 0 }

    /// The manifest's line, newline included.
    var line: [UInt8] {
        var buffer: [UInt8] = []
        LineFraming.begin(&buffer)
        let snapshotText = snapshot.map { String($0) } ?? "null"
        let journalText = journals.map { String($0) }.joined(separator: ",")
        buffer.append(contentsOf: #""format":\#(JournalRecord.formatVersion),"snapshot":\#(snapshotText),"journals":[\#(journalText)]"#.utf8)
        if let encryption {
            buffer.append(contentsOf: #","cipher":{"key":"#.utf8)
            JSONWriter().writeString(encryption.keyIdentifier, into: &buffer)
            buffer.append(contentsOf: #","check":""#.utf8)
            Base64.append(encryption.keyCheck, to: &buffer)
            buffer.append(contentsOf: #""}"#.utf8)
        }
        buffer.append(UInt8(ascii: "}"))
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
        switch object["cipher"] {
        case nil: break
        case .object(let cipher)?:
            guard case .string(let key)? = cipher["key"], case .string(let text)? = cipher["check"],
                  let check = Base64.decode(text.utf8)
            else { throw JournalError.invalidManifest(file: path, reason: "\"cipher\" lacks its key identifier or key check") }
            manifest.encryption = Encryption(keyIdentifier: key, keyCheck: check)
        default:
            throw JournalError.invalidManifest(file: path, reason: "\"cipher\" is not an object")
        }
        return manifest
    }

    /// Checks that `sealing` (nil: no cipher) fits the store: an encrypted store needs a cipher whose key opens the
    /// key check, a plaintext store no cipher. `directory` names the store in the error.
    /// - Throws: ``JournalError/encrypted(directory:keyIdentifier:)``, ``JournalError/wrongKey(directory:keyIdentifier:given:)``
    ///   or ``JournalError/notEncrypted(directory:)``.
    func checkKey(_ sealing: JournalSealing?, directory: String) throws(JournalError) {
        switch (encryption, sealing) {
        case (nil, nil):
            return
        case (nil, _?):
            throw JournalError.notEncrypted(directory: directory)
        case (let encryption?, nil):
            throw JournalError.encrypted(directory: directory, keyIdentifier: encryption.keyIdentifier)
        case (let encryption?, let sealing?):
            guard sealing.opens(keyCheck: encryption.keyCheck) else {
                throw JournalError.wrongKey(directory: directory, keyIdentifier: encryption.keyIdentifier, given: sealing.keyIdentifier)
            }
        }
    }

    /// Replaces the manifest atomically: writes `CURRENT.tmp`, syncs it, renames it over `CURRENT`, syncs the
    /// directory.
    func write(_ layout: StoreLayout, fileSystem: any FileSystem) throws(JournalError) {
        try fileSystem.writeNewFile(layout.manifestTemporaryPath, line)
        try fileSystem.rename(layout.manifestTemporaryPath, to: layout.manifestPath)
        try fileSystem.syncDirectory(layout.directory)
    }
}
