import Foundation
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// A ``FileSystem`` over the real one that counts calls and injects failures: an errno for the next matching
/// calls, short writes, and a "crash" after a number of changing operations (every later call fails, and a write
/// that hits the crash point writes only half of its bytes).
final class FaultInjectingFileSystem: FileSystem, @unchecked Sendable {
    enum Operation: String, Sendable {
        case open, read, write, sync, truncate, rename, remove, syncDirectory, makeDirectory, list, lock, size
    }

    private struct Rule {
        var operation: Operation
        var pathContains: String?
        var errno: Int32
        var remaining: Int
        var shortWrite: Bool
    }

    private let base = POSIXFileSystem()
    private let mutex = NSLock()
    private var counts: [Operation: Int] = [:]
    private var rules: [Rule] = []
    private var mutationsBeforeCrash: Int?
    private var crashed = false
    private var failingStep: (index: Int, errno: Int32)?
    private var stepsSeen = 0
    private var mutationLog: [String] = []
    /// Path → the file's bytes at its last successful sync (kept only with `keepingSyncedContents`).
    private let keepsSyncedContents: Bool
    private var syncedContents: [String: [UInt8]] = [:]
    private var losingPath: String?

    /// With `keepingSyncedContents`, the file system remembers each file's bytes at its last successful sync, so
    /// that ``failSyncLosingUnsyncedWrites(pathContains:)`` can drop what was written since.
    init(keepingSyncedContents: Bool = false) {
        keepsSyncedContents = keepingSyncedContents
    }

    /// How many times `operation` was called.
    func count(_ operation: Operation) -> Int { mutex.withLock { counts[operation] ?? 0 } }

    /// The changing operations performed so far, as "operation path".
    var mutations: [String] { mutex.withLock { mutationLog } }

    /// Whether the simulated crash happened.
    var hasCrashed: Bool { mutex.withLock { crashed } }

    /// Fails the next `times` calls of `operation` (on a path containing `pathContains`) with `errno`.
    func fail(_ operation: Operation, errno: Int32, pathContains: String? = nil, times: Int = 1) {
        mutex.withLock { rules.append(Rule(operation: operation, pathContains: pathContains, errno: errno, remaining: times, shortWrite: false)) }
    }

    /// Fails the next sync of a path containing `pathContains` with EIO, and drops every byte written to that file
    /// since its last successful sync, as Linux may after a failed write-back (the "fsyncgate" behaviour): the file
    /// then holds what it held at that sync. Needs `keepingSyncedContents`.
    func failSyncLosingUnsyncedWrites(pathContains: String) {
        precondition(keepsSyncedContents, "create the file system with keepingSyncedContents")
        fail(.sync, errno: 5, pathContains: pathContains)
        mutex.withLock { losingPath = pathContains }
    }

    /// Makes the next write write only half of its bytes (a short write), and the write after it fail with ENOSPC.
    func shortWriteThenFull(pathContains: String? = nil) {
        mutex.withLock {
            rules.append(Rule(operation: .write, pathContains: pathContains, errno: 0, remaining: 1, shortWrite: true))
            rules.append(Rule(operation: .write, pathContains: pathContains, errno: 28, remaining: 1, shortWrite: false))
        }
    }

    /// After `count` more changing operations (write, sync, truncate, rename, remove, directory sync, creating
    /// open), the process "dies": that operation and every later one fail with EIO.
    func crash(afterMutations count: Int) { mutex.withLock { mutationsBeforeCrash = count } }

    /// Fails step number `index` (0 is the next one) with `errno`, once; later calls succeed. The steps counted are
    /// the changing operations and every `open`, creating or not.
    func failStep(at index: Int, errno: Int32) { mutex.withLock { failingStep = (stepsSeen + index, errno) } }

    /// Whether the operation chosen by ``failStep(at:errno:)`` has failed.
    var failedStep: Bool { mutex.withLock { failingStep.map { stepsSeen > $0.index } ?? false } }

    private var gatePath: String?
    private var gateEntered: (@Sendable () -> Void)?
    private let gateRelease = DispatchSemaphore(value: 0)

    /// Makes the next write to a path containing `pathContains` call `entered` and then wait for `openGate()`.
    func closeGate(pathContains: String, entered: @escaping @Sendable () -> Void) {
        mutex.withLock {
            gatePath = pathContains
            gateEntered = entered
        }
    }

    /// Lets the write held by the gate continue.
    func openGate() { gateRelease.signal() }

    private func passGate(_ path: String) {
        let entered: (@Sendable () -> Void)? = mutex.withLock {
            guard let gate = gatePath, path.contains(gate) else { return nil }
            gatePath = nil
            return gateEntered
        }
        guard let entered else { return }
        entered()
        gateRelease.wait()
    }

    /// Removes every rule and the crash point.
    func heal() { mutex.withLock { rules = []; mutationsBeforeCrash = nil; crashed = false } }

    /// Counts the call; returns the errno to fail with, or nil; `half` tells a write to write half its bytes.
    private func check(_ operation: Operation, _ path: String, mutating: Bool) -> (errno: Int32?, half: Bool) {
        mutex.withLock {
            counts[operation, default: 0] += 1
            if crashed { return (5, false) }
            if mutating, let remaining = mutationsBeforeCrash {
                if remaining == 0 {
                    crashed = true
                    return (5, operation == .write)
                }
                mutationsBeforeCrash = remaining - 1
            }
            if mutating || operation == .open {
                stepsSeen += 1
                if let failing = failingStep, failing.index == stepsSeen - 1 { return (failing.errno, false) }
            }
            if let index = rules.firstIndex(where: { $0.operation == operation && ($0.pathContains.map { path.contains($0) } ?? true) }) {
                let rule = rules[index]
                rules[index].remaining -= 1
                if rules[index].remaining == 0 { rules.remove(at: index) }
                if rule.shortWrite { return (nil, true) }
                return (rule.errno, false)
            }
            if mutating { mutationLog.append("\(operation.rawValue) \(path)") }
            return (nil, false)
        }
    }

    private func run<T>(_ operation: Operation, _ path: String, mutating: Bool, _ body: () throws(JournalError) -> T) throws(JournalError) -> T {
        if let code = check(operation, path, mutating: mutating).errno {
            throw JournalError.io(operation: operation.rawValue, path: path, errno: code)
        }
        return try body()
    }

    func open(_ path: String, mode: OpenMode) throws(JournalError) -> FileDescriptor {
        let mutating = mode == .createNew || (mode == .createOrOpen && !base.fileExists(path))
        return try run(.open, path, mutating: mutating) { () throws(JournalError) in try base.open(path, mode: mode) }
    }

    func close(_ file: FileDescriptor) { base.close(file) }

    func size(_ file: FileDescriptor) throws(JournalError) -> Int64 {
        try run(.size, file.path, mutating: false) { () throws(JournalError) in try base.size(file) }
    }

    func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(JournalError) -> Int {
        try run(.read, file.path, mutating: false) { () throws(JournalError) in try base.read(file, into: buffer, at: offset) }
    }

    func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(JournalError) -> Int {
        passGate(file.path)
        let (code, half) = check(.write, file.path, mutating: true)
        if half, bytes.count > 1 {
            let written = try base.write(file, UnsafeRawBufferPointer(rebasing: bytes[0..<(bytes.count / 2)]), at: offset)
            if code == nil { return written }
        }
        if let code { throw JournalError.io(operation: "write", path: file.path, errno: code) }
        return try base.write(file, bytes, at: offset)
    }

    func sync(_ file: FileDescriptor) throws(JournalError) {
        do {
            try run(.sync, file.path, mutating: true) { () throws(JournalError) in try base.sync(file) }
        } catch {
            let loses = mutex.withLock { () -> Bool in
                guard let path = losingPath, file.path.contains(path) else { return false }
                losingPath = nil
                return true
            }
            if loses {
                let synced = mutex.withLock { syncedContents[file.path] ?? [] }
                try? base.truncate(file, to: 0)
                try? base.writeAll(file, synced, at: 0)
            }
            throw error
        }
        if keepsSyncedContents, let bytes = try? base.readFile(file.path) {
            mutex.withLock { syncedContents[file.path] = bytes }
        }
    }

    func truncate(_ file: FileDescriptor, to length: Int64) throws(JournalError) {
        try run(.truncate, file.path, mutating: true) { () throws(JournalError) in try base.truncate(file, to: length) }
    }

    func rename(_ source: String, to destination: String) throws(JournalError) {
        try run(.rename, source, mutating: true) { () throws(JournalError) in try base.rename(source, to: destination) }
    }

    func remove(_ path: String) throws(JournalError) {
        try run(.remove, path, mutating: true) { () throws(JournalError) in try base.remove(path) }
    }

    func syncDirectory(_ path: String) throws(JournalError) {
        try run(.syncDirectory, path, mutating: true) { () throws(JournalError) in try base.syncDirectory(path) }
    }

    func makeDirectory(_ path: String) throws(JournalError) {
        try run(.makeDirectory, path, mutating: true) { () throws(JournalError) in try base.makeDirectory(path) }
    }

    func contentsOfDirectory(_ path: String) throws(JournalError) -> [String] {
        try run(.list, path, mutating: false) { () throws(JournalError) in try base.contentsOfDirectory(path) }
    }

    func fileExists(_ path: String) -> Bool { base.fileExists(path) }

    func unlock(_ file: FileDescriptor) { base.unlock(file) }

    func lockExclusively(_ file: FileDescriptor) throws(JournalError) -> Bool {
        try run(.lock, file.path, mutating: false) { () throws(JournalError) in try base.lockExclusively(file) }
    }
}
