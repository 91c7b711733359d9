import Foundation
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal

/// Ciphers, markers and file checks shared by the encrypted store tests.
enum EncryptedStore {
    /// The key of most encrypted stores in the tests.
    static let key = [UInt8](repeating: 0x5A, count: 32)
    static let cipher = cipher(key: key, identifier: "test-key-1")
    /// Another key, for re-keying and wrong-key tests.
    static let otherKey: [UInt8] = (0..<32).map { UInt8($0) }
    static let otherCipher = cipher(key: otherKey, identifier: "test-key-2")

    static func cipher(key: [UInt8], identifier: String) -> ChaChaPolyCipher {
        do { return try ChaChaPolyCipher(key: key, keyIdentifier: identifier) } catch { fatalError("a 32-byte key: \(error)") }
    }

    /// Opens the store at `path` with `cipher` and the other options `configure` sets.
    static func open(_ path: String, cipher: (any StoreCipher)?, fileSystem: any FileSystem = POSIXFileSystem(),
                     configure: (inout JournalOptions) -> Void = { _ in }) async throws -> JournalDataSource {
        var options = JournalOptions()
        options.automaticCompaction = false
        options.cipher = cipher
        configure(&options)
        return try await JournalDataSource(path: path, options: options, fileSystem: fileSystem)
    }

    /// Every file of the directory at `path`, by name, with its bytes.
    static func files(at path: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            files[name] = try fileBytes(path + "/" + name)
        }
        return files
    }

    /// Every 8-byte run of `marker` in each encoding the store could write it in: UTF-8, JSON-escaped (every
    /// non-ASCII character as `\uXXXX`, in either case), and base64 at each of the three alignments (the symbols that
    /// depend on the marker's bytes alone); each run as the 8 bytes loaded into a `UInt64`.
    static func runs(of marker: String) -> Set<UInt64> {
        let utf8 = Array(marker.utf8)
        func escaped(_ format: String) -> [UInt8] {
            Array(marker.unicodeScalars.map { $0.isASCII ? String($0) : String(format: format, $0.value) }.joined().utf8)
        }
        var encodings = [utf8, escaped("\\u%04x"), escaped("\\u%04X")]
        for shift in 0..<3 {
            let text = Array(Base64.encode(Array(repeating: 0, count: shift) + utf8).utf8)
            let first = (8 * shift + 5) / 6, end = 8 * (shift + utf8.count) / 6
            encodings.append(Array(text[first..<end]))
        }
        var runs: Set<UInt64> = []
        for encoding in encodings where encoding.count >= 8 {
            for start in 0...(encoding.count - 8) { runs.insert(word(encoding, at: start)) }
        }
        return runs
    }

    private static func word(_ bytes: [UInt8], at start: Int) -> UInt64 {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: start, as: UInt64.self) }
    }

    /// The files of the directory at `path` that hold any 8-byte run of `marker` (``runs(of:)``), each with where.
    static func leaks(of marker: String, at path: String) throws -> [String] {
        let runs = runs(of: marker)
        var found: [String] = []
        for (name, bytes) in try files(at: path) where bytes.count >= 8 {
            for start in 0...(bytes.count - 8) where runs.contains(word(bytes, at: start)) {
                found.append("\(name) at \(start): \(String(decoding: bytes[start..<(start + 8)], as: UTF8.self))")
                break
            }
        }
        return found
    }

    /// 16-byte runs (every 8 bytes) of what the store's files at `path` hold sealed: the base64 payloads of journal
    /// records and the blocks of snapshots.
    static func sealedRuns(at path: String) throws -> Set<[UInt8]> {
        var regions: [[UInt8]] = []
        for (name, bytes) in try files(at: path) {
            if name.hasPrefix("snapshot."), SealedSnapshotFile.isSealed(bytes) {
                regions.append(Array(bytes[SealedSnapshotFile.headerBytes...]))
            } else if name.hasPrefix("journal.") {
                for line in bytes.split(separator: 0x0A) {
                    let text = String(decoding: line, as: UTF8.self)
                    if let range = text.range(of: #""e":""#) { regions.append(Array(text[range.upperBound...].utf8.dropLast(2))) }
                }
            }
        }
        var runs: Set<[UInt8]> = []
        for region in regions where region.count >= 16 {
            for start in stride(from: 0, through: region.count - 16, by: 8) { runs.insert(Array(region[start..<(start + 16)])) }
        }
        return runs
    }

    /// The files at `path` that hold any of `runs` (16 bytes each).
    static func files(at path: String, holdingAnyOf runs: Set<[UInt8]>) throws -> [String] {
        try files(at: path).filter { _, bytes in
            bytes.count >= 16 && (0...(bytes.count - 16)).contains { runs.contains(Array(bytes[$0..<($0 + 16)])) }
        }.map(\.key).sorted()
    }
}
