import OfflineSyncCore
import OfflineSyncStore
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// Everything read from a store directory, without changing it: the manifest, the snapshot and each journal's
/// scan. Used by open, verify and repair.
struct StoreReading: Sendable {
    var manifest: Manifest
    var snapshot: SnapshotContents?
    var snapshotBytes: Int64 = 0
    /// Why the snapshot the manifest names cannot be used.
    var snapshotProblem: JournalError?
    /// The journals scanned, in order; scanning stops after one that is corrupted.
    var journals: [JournalScan] = []
    /// The journals not scanned because an earlier file is damaged.
    var unscanned: [Int64] = []

    /// The sequence number of the last valid record.
    var lastSequence: Int64 { journals.last?.lastSequence ?? snapshot?.lastSequence ?? 0 }

    /// Reads the store in `layout`; `collectBatches` keeps the decoded journal batches for replay, and the
    /// snapshot's tables keep `indexes` (already valid). `sealing` opens an encrypted store's files; it must fit the
    /// manifest (``Manifest/checkKey(_:directory:)``), which is checked before any other file is read.
    /// - Throws: when the manifest cannot be read, when a file cannot be read for a reason other than its absence
    ///   (EIO, EACCES, EMFILE, …), or when the snapshot is of a newer format: a failing disk, the system or a newer
    ///   OfflineSync is not damage, so neither open nor repair acts on it; nor is a missing or wrong key. Damaged or
    ///   missing data files are reported in the result.
    /// The manifest and the journals are read on `files`, and the snapshot opened there; the snapshot's blocks are
    /// read beside their parsing (``SnapshotSource``).
    /// Without `snapshotLoaded`, only the snapshot's header is read (its figures, no item).
    static func read(_ layout: StoreLayout, fileSystem: any FileSystem, files: BlockingFileWork, collectBatches: Bool,
                     indexes: [IndexDefinition] = [], sealing: JournalSealing? = nil,
                     snapshotLoaded: Bool = true) async throws(JournalError) -> StoreReading {
        let manifest = try await files.run { () throws(JournalError) in try Manifest.read(layout.manifestPath, fileSystem: fileSystem) }
        try manifest.checkKey(sealing, directory: layout.directory)
        var reading = StoreReading(manifest: manifest)
        var baseSequence: Int64 = 0
        if let generation = manifest.snapshot {
            let path = layout.snapshotPath(generation)
            do throws(JournalError) {
                let file = try await files.run { () throws(JournalError) in try fileSystem.open(path, mode: .readOnly) }
                defer { fileSystem.close(file) }
                let (size, opened) = try await files.run { () throws(JournalError) in
                    let size = Int(try fileSystem.size(file))
                    return (size, try SnapshotSource.opening(file, path: path, size: size, generation: generation,
                                                             sealing: sealing, fileSystem: fileSystem))
                }
                reading.snapshotBytes = Int64(size)
                // Its blocks are read where they are parsed: each on `files` cost W4 1.2 to 1.5 times the time.
                let snapshot = snapshotLoaded ? try await SnapshotReader.read(opened, path: path, indexes: indexes)
                    : try SnapshotReader.header(opened, path: path)
                guard snapshot.generation == generation else {
                    throw JournalError.invalidSnapshot(file: path, offset: 0, reason: "it holds generation \(snapshot.generation), not \(generation)")
                }
                reading.snapshot = snapshot
                baseSequence = snapshot.lastSequence
            } catch {
                guard isDamage(error) else { throw error }
                reading.snapshotProblem = error
                reading.unscanned = manifest.journals
                return reading
            }
        }
        for (index, generation) in manifest.journals.enumerated() {
            let path = layout.journalPath(generation)
            let bytes: [UInt8]
            do throws(JournalError) {
                bytes = try await files.run { () throws(JournalError) in try fileSystem.readFile(path) }
            } catch {
                guard isDamage(error) else { throw error }
                reading.journals.append(JournalScan.missing(path: path, generation: generation, baseSequence: baseSequence))
                reading.unscanned = Array(manifest.journals[(index + 1)...])
                return reading
            }
            var scan = await JournalScan.scan(bytes, path: path, generation: generation, baseSequence: baseSequence,
                                              collectBatches: collectBatches, sealing: sealing)
            let isLast = index == manifest.journals.count - 1
            if case .tornTail(let offset, let reason)? = scan.problem, !isLast {
                scan.problem = .corrupted(offset: offset, sequence: scan.lastSequence + 1, reason: reason + " in a journal that is not the newest")
            }
            reading.journals.append(scan)
            if let problem = scan.problem, !isTornTail(problem) {
                reading.unscanned = Array(manifest.journals[(index + 1)...])
                return reading
            }
            baseSequence = scan.lastSequence
        }
        return reading
    }

    /// Builds the in-memory tables: the snapshot's items, then every collected batch in order, with `indexes`
    /// (already valid) maintained throughout. Takes the snapshot's tables out of this reading (so that applying
    /// the batches copies nothing) and drops the batches.
    mutating func takeTables(indexes: [IndexDefinition]) throws(JournalError) -> TableSet {
        var tables = snapshot?.tables ?? TableSet()
        snapshot?.tables = TableSet()
        do { try tables.defineIndexes(indexes) } catch { throw JournalError.invalidIndex(error) }
        for position in journals.indices {
            for batch in journals[position].batches { tables.apply(batch) }
            journals[position].batches = []
        }
        return tables
    }

    /// Whether `error`, met reading a file the manifest names, means the store is damaged: bad contents, or the
    /// file is missing. Any other failed system call is the disk's or the system's, and a file of a newer format
    /// is a newer OfflineSync's: both are thrown as they are, never repaired.
    static func isDamage(_ error: JournalError) -> Bool {
        switch error.code {
        case .io: return error.errno == ENOENT
        case .unsupportedFormat, .encrypted, .wrongKey, .notEncrypted, .sealingFailed: return false
        default: return true
        }
    }

    static func isTornTail(_ problem: JournalScan.Problem) -> Bool {
        if case .tornTail = problem { return true }
        return false
    }
}
