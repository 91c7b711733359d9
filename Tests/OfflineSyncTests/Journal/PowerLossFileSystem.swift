import Foundation
import OfflineSyncTesting
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// A ``FileSystem`` over the real one that remembers what the disk has made durable, so that a test can cut the
/// power at any changing operation and see a disk as it could be afterwards.
///
/// The model: a file's data is durable as of its last `sync`; a directory entry (a creation, rename or removal) is
/// durable once its directory is synced. After the power fails:
/// - a prefix of the unsynced directory operations has happened (a journaling file system commits them in order);
/// - every file holds its synced bytes, overlaid with a prefix of its unsynced pages (4 KiB), possibly followed by
///   one torn page (a prefix of that page's new bytes), the rest as it was last synced.
/// The choices come from a seed, so every outcome can be replayed.
///
/// ``disksAfterPowerLoss(in:keepingAnySubsetOf:seed:)`` models write-back out of order instead: every file keeps
/// any subset of the pages that changed since its last sync (a later page may reach the disk while an earlier one
/// does not), a lost page reads as it was last synced (zeros where the file had no bytes yet), and the file is as
/// long as its synced bytes or as far as its last kept page reaches.
final class PowerLossFileSystem: FileSystem, @unchecked Sendable {
    static let pageSize = 4096

    private enum DirectoryOperation {
        case create(String, Int)
        case rename(String, String)
        case remove(String)
    }

    private let base = POSIXFileSystem()
    private let mutex = NSLock()
    /// Name → file number: as the directory is now, and as it was last synced.
    private var currentNames: [String: Int] = [:]
    private var durableNames: [String: Int] = [:]
    private var pending: [DirectoryOperation] = []
    /// File number → bytes: as the file is now, and as it was last synced.
    private var current: [Int: [UInt8]] = [:]
    private var durable: [Int: [UInt8]] = [:]
    private var openFiles: [Int32: Int] = [:]
    private var nextFile = 0
    private var mutationsLeft: Int?

    /// Whether the power failed (every call since has failed with EIO).
    private(set) var poweredOff = false

    /// Fails the power at the changing operation number `count` (0 is the first): that operation and every later
    /// call fail with EIO and change nothing.
    init(failingAt count: Int? = nil) {
        mutationsLeft = count
    }

    /// The files of directory `path` as the disk could hold them after the power failed now, by name.
    func diskAfterPowerLoss(in path: String, seed: UInt64) -> [String: [UInt8]] {
        mutex.withLock {
            var random = SplitMix64(seed: seed)
            var names = durableNames
            for operation in pending.prefix(Int.random(in: 0...pending.count, using: &random)) {
                switch operation {
                case .create(let name, let file): names[name] = file
                case .rename(let source, let destination): names[destination] = names.removeValue(forKey: source)
                case .remove(let name): names[name] = nil
                }
            }
            var disk: [String: [UInt8]] = [:]
            for (name, file) in names where Self.directory(of: name) == path {
                disk[(name as NSString).lastPathComponent] = Self.afterPowerLoss(synced: durable[file] ?? [], now: current[file] ?? [],
                                                                                 random: &random)
            }
            return disk
        }
    }

    private static func directory(of path: String) -> String { (path as NSString).deletingLastPathComponent }

    /// The disks that directory `path` could hold if the power failed now and pages reached the disk in any order:
    /// for each, a seeded prefix of the unsynced directory operations, and of the pages that changed since their
    /// file's last sync a subset. Every subset when there are at most `limit` of them, else `limit` seeded ones.
    func disksAfterPowerLoss(in path: String, keepingAnySubsetOf limit: Int, seed: UInt64) -> [[String: [UInt8]]] {
        mutex.withLock {
            var random = SplitMix64(seed: seed)
            // Every file the directory can name after some prefix of the pending operations, by number.
            var numbers = Set(durableNames.filter { Self.directory(of: $0.key) == path }.values)
            for case .create(let name, let file) in pending where Self.directory(of: name) == path { numbers.insert(file) }
            let files = numbers.sorted().map { (number: $0, dirty: Self.changedPages(synced: durable[$0] ?? [], now: current[$0] ?? [])) }
            let dirtyCount = files.reduce(0) { $0 + $1.dirty.count }
            let exhaustive = dirtyCount < 20 && (1 << dirtyCount) <= limit
            // Which changed pages each disk keeps, in the order of `files` and their pages.
            let choices: [[Bool]] = exhaustive
                ? (0..<(1 << dirtyCount)).map { subset in (0..<dirtyCount).map { subset & (1 << $0) != 0 } }
                : (0..<limit).map { _ in (0..<dirtyCount).map { _ in Bool.random(using: &random) } }
            var disks: [[String: [UInt8]]] = []
            for choice in choices {
                var named = durableNames
                for operation in pending.prefix(Int.random(in: 0...pending.count, using: &random)) { Self.perform(operation, on: &named) }
                var contents: [Int: [UInt8]] = [:]
                var next = 0
                for file in files {
                    let kept = Set(file.dirty.enumerated().filter { choice[next + $0.offset] }.map(\.element))
                    next += file.dirty.count
                    contents[file.number] = Self.keeping(kept, synced: durable[file.number] ?? [], now: current[file.number] ?? [])
                }
                var disk: [String: [UInt8]] = [:]
                for (name, file) in named where Self.directory(of: name) == path {
                    disk[(name as NSString).lastPathComponent] = contents[file] ?? []
                }
                disks.append(disk)
            }
            return disks
        }
    }

    private static func perform(_ operation: DirectoryOperation, on names: inout [String: Int]) {
        switch operation {
        case .create(let name, let file): names[name] = file
        case .rename(let source, let destination): names[destination] = names.removeValue(forKey: source)
        case .remove(let name): names[name] = nil
        }
    }

    /// The pages (4 KiB) whose bytes differ between `synced` and `now`.
    private static func changedPages(synced: [UInt8], now: [UInt8]) -> [Int] {
        let pages = (max(synced.count, now.count) + pageSize - 1) / pageSize
        return (0..<pages).filter { page in
            let range = page * pageSize..<(page + 1) * pageSize
            return synced[min(range.lowerBound, synced.count)..<min(range.upperBound, synced.count)]
                != now[min(range.lowerBound, now.count)..<min(range.upperBound, now.count)]
        }
    }

    /// The synced bytes with the pages `kept` as they are now: as long as the synced bytes or as far as the last
    /// kept page reaches (a file cut since its sync keeps its synced length unless every changed page is kept).
    private static func keeping(_ kept: Set<Int>, synced: [UInt8], now: [UInt8]) -> [UInt8] {
        let length: Int
        if now.count < synced.count {
            length = kept.count == changedPages(synced: synced, now: now).count ? now.count : synced.count
        } else {
            length = kept.reduce(synced.count) { max($0, min(now.count, ($1 + 1) * pageSize)) }
        }
        var bytes = Array(synced.prefix(length))
        if bytes.count < length { bytes += [UInt8](repeating: 0, count: length - bytes.count) }
        for page in kept {
            let end = min((page + 1) * pageSize, now.count, length)
            if page * pageSize < end { bytes.replaceSubrange(page * pageSize..<end, with: now[page * pageSize..<end]) }
        }
        return bytes
    }

    /// The synced bytes overlaid with a prefix of the pages written since, and maybe one torn page.
    private static func afterPowerLoss(synced: [UInt8], now: [UInt8], random: inout SplitMix64) -> [UInt8] {
        let pages = (now.count + pageSize - 1) / pageSize
        let kept = Int.random(in: 0...pages, using: &random)
        var newBytes = min(now.count, kept * pageSize)
        if kept < pages, Bool.random(using: &random) {
            newBytes += Int.random(in: 0..<min(pageSize, now.count - newBytes), using: &random)
        }
        var bytes = Array(now[0..<newBytes])
        if synced.count > newBytes { bytes += synced[newBytes...] }
        return bytes
    }

    /// Counts a changing operation; throws EIO at and after the power failure.
    private func change(_ operation: String, _ path: String) throws(JournalError) {
        let failed: Bool = mutex.withLock {
            if poweredOff { return true }
            if let left = mutationsLeft {
                if left == 0 {
                    poweredOff = true
                    return true
                }
                mutationsLeft = left - 1
            }
            return false
        }
        if failed { throw JournalError.io(operation: operation, path: path, errno: 5) }
    }

    private func check(_ operation: String, _ path: String) throws(JournalError) {
        if mutex.withLock({ poweredOff }) { throw JournalError.io(operation: operation, path: path, errno: 5) }
    }

    func open(_ path: String, mode: OpenMode) throws(JournalError) -> FileDescriptor {
        let creating = mode == .createNew || (mode == .createOrOpen && !base.fileExists(path))
        if creating { try change("open", path) } else { try check("open", path) }
        let file = try base.open(path, mode: mode)
        mutex.withLock {
            if creating {
                nextFile += 1
                currentNames[path] = nextFile
                current[nextFile] = []
                pending.append(.create(path, nextFile))
            }
            openFiles[file.raw] = currentNames[path]
        }
        return file
    }

    func close(_ file: FileDescriptor) {
        mutex.withLock { openFiles[file.raw] = nil }
        base.close(file)
    }

    func size(_ file: FileDescriptor) throws(JournalError) -> Int64 {
        try check("size", file.path)
        return try base.size(file)
    }

    func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(JournalError) -> Int {
        try check("read", file.path)
        return try base.read(file, into: buffer, at: offset)
    }

    func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(JournalError) -> Int {
        try change("write", file.path)
        let written = try base.write(file, bytes, at: offset)
        mutex.withLock {
            guard let number = openFiles[file.raw] else { return }
            var content = current.removeValue(forKey: number) ?? []
            let end = Int(offset) + written
            if content.count < end { content += [UInt8](repeating: 0, count: end - content.count) }
            content.withUnsafeMutableBytes { content in
                UnsafeMutableRawBufferPointer(rebasing: content[Int(offset)..<end])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[0..<written]))
            }
            current[number] = content
        }
        return written
    }

    func sync(_ file: FileDescriptor) throws(JournalError) {
        try change("sync", file.path)
        try base.sync(file)
        mutex.withLock {
            guard let number = openFiles[file.raw] else { return }
            durable[number] = current[number]
        }
    }

    func truncate(_ file: FileDescriptor, to length: Int64) throws(JournalError) {
        try change("truncate", file.path)
        try base.truncate(file, to: length)
        mutex.withLock {
            guard let number = openFiles[file.raw], var content = current[number] else { return }
            if content.count > Int(length) { content.removeSubrange(Int(length)...) } else {
                content += [UInt8](repeating: 0, count: Int(length) - content.count)
            }
            current[number] = content
        }
    }

    func rename(_ source: String, to destination: String) throws(JournalError) {
        try change("rename", source)
        try base.rename(source, to: destination)
        mutex.withLock {
            currentNames[destination] = currentNames.removeValue(forKey: source)
            pending.append(.rename(source, destination))
        }
    }

    func remove(_ path: String) throws(JournalError) {
        try change("remove", path)
        try base.remove(path)
        mutex.withLock {
            currentNames[path] = nil
            pending.append(.remove(path))
        }
    }

    func syncDirectory(_ path: String) throws(JournalError) {
        try change("syncDirectory", path)
        try base.syncDirectory(path)
        mutex.withLock {
            // Every entry of this directory is durable now; entries of other directories keep waiting.
            var kept: [DirectoryOperation] = []
            var names = durableNames
            for operation in pending {
                switch operation {
                case .create(let name, let file) where Self.directory(of: name) == path: names[name] = file
                case .rename(let source, let destination) where Self.directory(of: source) == path:
                    names[destination] = names.removeValue(forKey: source)
                case .remove(let name) where Self.directory(of: name) == path: names[name] = nil
                default: kept.append(operation)
                }
            }
            durableNames = names
            pending = kept
        }
    }

    func makeDirectory(_ path: String) throws(JournalError) {
        try check("makeDirectory", path)
        try base.makeDirectory(path)
    }

    func contentsOfDirectory(_ path: String) throws(JournalError) -> [String] {
        try check("list", path)
        return try base.contentsOfDirectory(path)
    }

    func fileExists(_ path: String) -> Bool { base.fileExists(path) }

    func lockExclusively(_ file: FileDescriptor) throws(JournalError) -> Bool {
        try check("lock", file.path)
        return try base.lockExclusively(file)
    }

    func unlock(_ file: FileDescriptor) { base.unlock(file) }
}
