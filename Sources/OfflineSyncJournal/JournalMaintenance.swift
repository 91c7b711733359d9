import OfflineSyncCore
import OfflineSyncStore
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What ``JournalDataSource/verify(directory:)`` found.
public struct JournalVerification: Sendable {
    /// Every problem found: torn tails, corrupted records, unreadable or unchecked files.
    public var problems: [JournalProblem]
    /// True when no problem was found.
    public var isSound: Bool { problems.isEmpty }
    /// The current generation the manifest names.
    public var generation: Int64
    /// The valid apply records in the journals.
    public var records: Int
    /// The sequence number of the last valid record.
    public var lastSequence: Int64
}

/// One problem in a store's files.
public struct JournalProblem: Sendable, CustomStringConvertible {
    /// The file's path.
    public var file: String
    /// The byte offset in the file where the problem starts.
    public var offset: Int64
    /// The sequence number concerned, when known.
    public var sequence: Int64?
    /// What is wrong, starting with its kind (`torn tail`, `corrupted`, `invalid snapshot`, …).
    public var message: String

    /// A sentence naming the file, offset, sequence and problem.
    public var description: String {
        let record = sequence.map { ", sequence \($0)" } ?? ""
        return "\(file) at byte offset \(offset)\(record): \(message)."
    }
}

/// What ``JournalDataSource/repair(directory:)`` did.
public struct JournalRepairReport: Sendable {
    /// The paths of the damaged parts, moved aside and kept (`*.broken`).
    public var movedAside: [String]
    /// The valid apply records kept in the journals.
    public var recordsKept: Int
    /// The bytes moved out of the store's files.
    public var bytesMovedAside: Int64

    /// Nothing done yet.
    init() {
        (movedAside, recordsKept, bytesMovedAside) = ([], 0, 0)
    }
}

extension JournalDataSource {
    /// Checks every checksum and sequence without changing anything. Takes the store's lock for the duration.
    /// - Throws: ``JournalError/locked(directory:)`` while the store is open; ``JournalError/notAStore(directory:)``
    ///   when the directory holds no store; ``JournalError/invalidManifest(file:reason:)``.
    public static func verify(directory: URL) async throws -> JournalVerification {
        try await verify(path: directory.path(percentEncoded: false), fileSystem: POSIXFileSystem())
    }

    /// Checks an encrypted store as ``verify(directory:)`` does, opening every sealed record and snapshot block with
    /// `cipher` (nil: a plaintext store). A sealed piece that fails authentication is reported as corrupted.
    /// - Throws: as ``verify(directory:)``, and ``JournalError/encrypted(directory:keyIdentifier:)``,
    ///   ``JournalError/wrongKey(directory:keyIdentifier:given:)`` or ``JournalError/notEncrypted(directory:)`` when
    ///   `cipher` does not fit the store.
    public static func verify(directory: URL, cipher: (any StoreCipher)?) async throws -> JournalVerification {
        let sealing = try cipher.map { (cipher) throws(JournalError) in try JournalSealing(cipher) }
        return try await verify(path: directory.path(percentEncoded: false), fileSystem: POSIXFileSystem(), sealing: sealing)
    }

    /// Moves the damaged part of the store aside (renamed or copied to `*.broken`, kept) and leaves the valid
    /// prefix, which then opens. A damaged snapshot moves the snapshot and every journal aside, leaving an empty
    /// store; a missing or damaged manifest is rebuilt from the files present (Docs/JournalFormat.md, "Opening and recovery").
    /// Takes the store's lock for the duration.
    /// - Throws: ``JournalError/locked(directory:)`` while the store is open, and I/O errors.
    public static func repair(directory: URL) async throws -> JournalRepairReport {
        try await repair(path: directory.path(percentEncoded: false), fileSystem: POSIXFileSystem())
    }

    /// Repairs an encrypted store as ``repair(directory:)`` does, with `cipher` (nil: a plaintext store) to open and
    /// write its sealed files. Without the right key it throws and changes nothing. When it rebuilds the manifest and
    /// no journal header names the store's key, `cipher` must open a block of the sealed snapshot or an intact record
    /// (its identifier alone proves nothing).
    /// - Throws: as ``repair(directory:)``, and ``JournalError/encrypted(directory:keyIdentifier:)`` or
    ///   ``JournalError/wrongKey(directory:keyIdentifier:given:)`` when `cipher` does not fit the store.
    public static func repair(directory: URL, cipher: (any StoreCipher)?) async throws -> JournalRepairReport {
        let sealing = try cipher.map { (cipher) throws(JournalError) in try JournalSealing(cipher) }
        return try await repair(path: directory.path(percentEncoded: false), fileSystem: POSIXFileSystem(), sealing: sealing)
    }

    /// Takes the lock of the store at `path`, reads every file of it without changing anything, and runs `body`
    /// with what was read; the lock is released afterwards.
    private static func withLockedReading<Result>(
        path: String, fileSystem: any FileSystem, sealing: JournalSealing?,
        _ body: (StoreLayout, StoreReading) throws(JournalError) -> Result
    ) async throws(JournalError) -> Result {
        let layout = StoreLayout(directory: path)
        let files = BlockingFileWork(label: "OfflineSync.JournalDataSource.maintenance")
        let lock = try await files.run { () throws(JournalError) in
            guard fileSystem.fileExists(layout.manifestPath) else { throw JournalError.notAStore(directory: layout.directory) }
            return try StoreLock.acquire(layout, fileSystem: fileSystem)
        }
        defer { lock.close() }
        let reading = try await StoreReading.read(layout, fileSystem: fileSystem, files: files, collectBatches: false, sealing: sealing)
        return try body(layout, reading)
    }

    static func verify(path: String, fileSystem: any FileSystem, sealing: JournalSealing? = nil) async throws(JournalError) -> JournalVerification {
        try await withLockedReading(path: path, fileSystem: fileSystem, sealing: sealing) { (layout, reading) throws(JournalError) in
            JournalVerification(problems: problems(in: reading, layout: layout), generation: reading.manifest.generation,
                                records: reading.journals.reduce(0) { $0 + $1.recordCount },
                                lastSequence: reading.lastSequence)
        }
    }

    static func problems(in reading: StoreReading, layout: StoreLayout) -> [JournalProblem] {
        var problems: [JournalProblem] = []
        if let problem = reading.snapshotProblem {
            let file = reading.manifest.snapshot.map(layout.snapshotPath) ?? layout.directory
            problems.append(JournalProblem(file: file, offset: problem.offset ?? 0, sequence: nil, message: "invalid snapshot: \(problem.description)"))
        }
        for scan in reading.journals {
            switch scan.problem {
            case .tornTail(let offset, let reason)?:
                problems.append(JournalProblem(file: scan.path, offset: offset, sequence: scan.lastSequence + 1,
                                               message: "torn tail (\(scan.size - offset) bytes, cut off on the next open): \(reason)"))
            case .corrupted(let offset, let sequence, let reason)?:
                problems.append(JournalProblem(file: scan.path, offset: offset, sequence: sequence, message: "corrupted: \(reason)"))
            case .unsupportedFormat(let version)?:
                problems.append(JournalProblem(file: scan.path, offset: 0, sequence: nil, message: "unsupported format version \(version)"))
            case .needsKey(let key)?:
                problems.append(JournalProblem(file: scan.path, offset: 0, sequence: nil, message: "sealed with the key \"\(key)\", not checked without it"))
            case nil:
                continue
            }
        }
        for generation in reading.unscanned {
            problems.append(JournalProblem(file: layout.journalPath(generation), offset: 0, sequence: nil,
                                           message: "not checked: an earlier file of the store is damaged"))
        }
        return problems
    }

    static func repair(path: String, fileSystem: any FileSystem, sealing: JournalSealing? = nil) async throws(JournalError) -> JournalRepairReport {
        let layout = StoreLayout(directory: path)
        let files = BlockingFileWork(label: "OfflineSync.JournalDataSource.maintenance")
        let lock = try await files.run { () throws(JournalError) in
            guard try ManifestRebuild.holdsStore(layout, fileSystem: fileSystem) else { throw JournalError.notAStore(directory: layout.directory) }
            return try StoreLock.acquire(layout, fileSystem: fileSystem)
        }
        defer { lock.close() }
        let (storeRemains, rebuilt) = try await ManifestRebuild.rebuildIfNeeded(layout, fileSystem: fileSystem, files: files, sealing: sealing)
        guard storeRemains else { return rebuilt }
        let reading = try await StoreReading.read(layout, fileSystem: fileSystem, files: files, collectBatches: false, sealing: sealing)
        var report = try await files.run { () throws(JournalError) in
            try moveDamagedPartsAside(layout, reading, keyIdentifier: reading.manifest.encryption?.keyIdentifier, fileSystem: fileSystem)
        }
        report.movedAside = rebuilt.movedAside + report.movedAside
        report.bytesMovedAside += rebuilt.bytesMovedAside
        return report
    }

    /// Renames `source` to a `*.broken` name beside it and counts it in `report`; a missing file is skipped.
    static func moveAside(_ source: String, fileSystem: any FileSystem, into report: inout JournalRepairReport) throws(JournalError) {
        guard fileSystem.fileExists(source) else { return }
        let target = uniqueName(source, fileSystem: fileSystem)
        let file = try fileSystem.open(source, mode: .readOnly)
        let size = (try? fileSystem.size(file)) ?? 0
        fileSystem.close(file)
        try fileSystem.rename(source, to: target)
        report.movedAside.append(target)
        report.bytesMovedAside += size
    }

    /// Repair proper, under the lock: moves what `reading` found damaged aside and rewrites the manifest; a journal
    /// it starts names `keyIdentifier` (the store's key, nil for a plaintext store).
    private static func moveDamagedPartsAside(
        _ layout: StoreLayout, _ reading: StoreReading, keyIdentifier: String?, fileSystem: any FileSystem
    ) throws(JournalError) -> JournalRepairReport {
        var report = JournalRepairReport()
        let manifest = reading.manifest
        func moveAside(_ source: String) throws(JournalError) {
            try Self.moveAside(source, fileSystem: fileSystem, into: &report)
        }
        if reading.snapshotProblem != nil {
            if let snapshot = manifest.snapshot { try moveAside(layout.snapshotPath(snapshot)) }
            for generation in manifest.journals { try moveAside(layout.journalPath(generation)) }
            let generation = manifest.generation + 1
            try fileSystem.writeNewFile(layout.journalPath(generation),
                                        JournalRecord.headerLine(generation: generation, baseSequence: 0, keyIdentifier: keyIdentifier))
            try fileSystem.syncDirectory(layout.directory)
            try Manifest(snapshot: nil, journals: [generation], encryption: manifest.encryption).write(layout, fileSystem: fileSystem)
            return report
        }
        var kept: [Int64] = []
        for scan in reading.journals {
            // A journal that is gone ends the valid prefix before it.
            guard fileSystem.fileExists(scan.path) else { break }
            report.recordsKept += scan.recordCount
            kept.append(scan.generation)
            guard let problem = scan.problem else { continue }
            if case .unsupportedFormat(let version) = problem { throw JournalError.unsupportedFormat(file: scan.path, version: version) }
            if case .needsKey(let key) = problem { throw JournalError.encrypted(directory: layout.directory, keyIdentifier: key) }
            let bytes = try fileSystem.readFile(scan.path)
            let damaged = Array(bytes[Int(scan.validEnd)...])
            let target = uniqueName(scan.path + ".at-\(scan.validEnd)", fileSystem: fileSystem)
            try fileSystem.writeNewFile(target, damaged)
            report.movedAside.append(target)
            report.bytesMovedAside += Int64(damaged.count)
            let file = try fileSystem.open(scan.path, mode: .readWrite)
            defer { fileSystem.close(file) }
            _ = try Recovery.cutTornTail(scan, file: file, keyIdentifier: keyIdentifier, fileSystem: fileSystem)
            break
        }
        for generation in manifest.journals where !kept.contains(generation) { try moveAside(layout.journalPath(generation)) }
        if kept.isEmpty {
            let generation = manifest.generation + 1
            let base = reading.snapshot?.lastSequence ?? 0
            try fileSystem.writeNewFile(layout.journalPath(generation),
                                        JournalRecord.headerLine(generation: generation, baseSequence: base, keyIdentifier: keyIdentifier))
            kept = [generation]
        }
        try fileSystem.syncDirectory(layout.directory)
        if kept != manifest.journals {
            try Manifest(snapshot: manifest.snapshot, journals: kept, encryption: manifest.encryption).write(layout, fileSystem: fileSystem)
        }
        return report
    }

    /// `<path>.broken`, or `<path>.<n>.broken` when that exists already.
    private static func uniqueName(_ path: String, fileSystem: any FileSystem) -> String {
        var candidate = path + ".broken"
        var counter = 1
        while fileSystem.fileExists(candidate) {
            candidate = path + ".\(counter).broken"
            counter += 1
        }
        return candidate
    }
}
