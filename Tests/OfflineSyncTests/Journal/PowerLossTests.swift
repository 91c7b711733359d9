import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Power loss at every changing file operation of a workload (applies, a compaction and its manifest switches,
/// close) in each durability with one writer, with applies whose durability is deferred, and under group commit
/// with four, each with several seeded disks the
/// file system could leave (``PowerLossFileSystem``): the store always opens, never holds half a batch, and keeps
/// every batch its durability promised, whether it loads its snapshot before it opens or after.
struct PowerLossTests {
    /// Disks tried per crash point; `OFFLINESYNC_FUZZ=<factor>` multiplies them.
    static let outcomesPerPoint = FuzzBudget.cases(3)
    static let batches = 10

    /// What a run of the workload acknowledged before the power failed.
    struct Run {
        var acknowledged: Set<Int> = []
        /// Batches acknowledged before a sync that covers them (a compaction or close): durable even when buffered.
        var synced: Set<Int> = []
        var poweredOff = false
    }

    /// Single writer: batches 1…10 in order, a compaction after batch 5, then close. With `deferring`, even batches
    /// go through `applyDeferringDurability` (as a push's bookkeeping): such a batch is promised once a later
    /// `apply`, the compaction or close has returned.
    static func singleWriter(_ directory: TemporaryDirectory, _ durability: Durability, _ fileSystem: PowerLossFileSystem,
                             deferring: Bool = false, applyingWhileWriting: Bool = false, cipher: (any StoreCipher)? = nil) async -> Run {
        var run = Run()
        var store: JournalDataSource?
        do {
            var options = JournalOptions(durability: durability)
            options.automaticCompaction = false
            if applyingWhileWriting { options.applyWhileWritingBytes = 0 }
            options.cipher = cipher
            let opened = try await JournalDataSource(path: directory.storePath, options: options, fileSystem: fileSystem)
            store = opened
            for n in 1...batches {
                let deferred = deferring && n.isMultiple(of: 2)
                if deferred { try await opened.applyDeferringDurability(Sample.batch(n)) } else { try await opened.apply(Sample.batch(n)) }
                run.acknowledged.insert(n)
                if deferring, !deferred { run.synced = run.acknowledged }
                if n == 5 {
                    try await opened.compact()
                    run.synced = run.acknowledged
                }
            }
            try await opened.close()
            run.synced = run.acknowledged
        } catch {}
        if let store { try? await store.close() }
        run.poweredOff = fileSystem.poweredOff
        return run
    }

    /// Group commit: four writers of four batches each, a compaction by the first writer half way.
    static func groupedWriters(_ directory: TemporaryDirectory, _ fileSystem: PowerLossFileSystem) async -> Run {
        let acknowledged = LockedValue(Set<Int>())
        var store: JournalDataSource?
        do {
            var options = JournalOptions(durability: .grouped)
            options.automaticCompaction = false
            let opened = try await JournalDataSource(path: directory.storePath, options: options, fileSystem: fileSystem)
            store = opened
            await withTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        for step in 1...4 {
                            let n = writer * 10 + step
                            do { try await opened.apply(Sample.batch(n)) } catch { return }
                            _ = acknowledged.withLock { $0.insert(n) }
                            if writer == 0, step == 2 { try? await opened.compact() }
                        }
                    }
                }
            }
            try await opened.close()
        } catch {}
        if let store { try? await store.close() }
        return Run(acknowledged: acknowledged.current, synced: acknowledged.current, poweredOff: fileSystem.poweredOff)
    }

    /// Writes the disk the power loss left in place of the store's directory and opens it for real.
    static func reopenAfterPowerLoss(_ directory: TemporaryDirectory, _ fileSystem: PowerLossFileSystem, seed: UInt64,
                                     cipher: (any StoreCipher)? = nil) async throws -> JournalDataSource {
        let disk = fileSystem.diskAfterPowerLoss(in: directory.storePath, seed: seed)
        try? FileManager.default.removeItem(at: directory.store)
        try FileManager.default.createDirectory(at: directory.store, withIntermediateDirectories: true)
        for (name, bytes) in disk { try writeBytes(bytes, to: directory.store.appendingPathComponent(name).path) }
        return try await EncryptedStore.open(directory.storePath, cipher: cipher)
    }

    /// Runs `workload` with the power failing at every changing operation in turn until a run ends without
    /// failing, and checks every seeded disk of each.
    static func sweep(_ label: String, batches all: [Int], prefixOnly: Bool = false, cipher: (any StoreCipher)? = nil,
                      _ workload: (TemporaryDirectory, PowerLossFileSystem) async -> Run) async throws -> Int {
        var point = 0
        while true {
            for outcome in 0..<outcomesPerPoint {
                let directory = TemporaryDirectory()
                defer { directory.remove() }
                let fileSystem = PowerLossFileSystem(failingAt: point)
                let run = await workload(directory, fileSystem)
                if !run.poweredOff { return point }
                let seed = UInt64(point * 1000 + outcome)
                let store: JournalDataSource
                do {
                    store = try await reopenAfterPowerLoss(directory, fileSystem, seed: seed, cipher: cipher)
                } catch {
                    Issue.record("\(label): power lost at operation \(point) (seed \(seed)): the store does not open: \(error)")
                    continue
                }
                var present: [Int] = []
                for n in all where try await Sample.holds(store, batch: n) { present.append(n) }
                let required = prefixOnly ? run.synced : run.acknowledged
                #expect(required.isSubset(of: Set(present)), "\(label), operation \(point), seed \(seed): lost \(required.subtracting(present).sorted())")
                if prefixOnly, let last = present.max() {
                    #expect(present == Array(1...last), "\(label), operation \(point), seed \(seed): kept \(present), not a prefix")
                }
                try await store.close()
                // Opened before its snapshot loads, the store answers the same (a lookup file the power loss left
                // stale or half written is never used).
                let lazily = try await EncryptedStore.open(directory.storePath, cipher: cipher) { $0.loadsSnapshotInBackground = true }
                var presentLazily: [Int] = []
                for n in all where try await Sample.holds(lazily, batch: n) { presentLazily.append(n) }
                #expect(presentLazily == present, "\(label), operation \(point), seed \(seed): opened before the load")
                try await lazily.waitUntilLoaded()
                try await lazily.close()
            }
            point += 1
        }
    }

    @Test(arguments: [Durability.always, .grouped, .buffered])
    func aSingleWriterLosesNothingItWasPromisedAtAnyPowerLoss(durability: Durability) async throws {
        let points = try await Self.sweep("\(durability)", batches: Array(1...Self.batches), prefixOnly: durability == .buffered) {
            await Self.singleWriter($0, durability, $1)
        }
        #expect(points > 30, "the workload has \(points) changing operations")
    }

    @Test(arguments: [Durability.always, .grouped])
    func anEncryptedSingleWriterLosesNothingItWasPromisedAtAnyPowerLoss(durability: Durability) async throws {
        let points = try await Self.sweep("encrypted \(durability)", batches: Array(1...Self.batches), cipher: EncryptedStore.cipher) {
            await Self.singleWriter($0, durability, $1, cipher: EncryptedStore.cipher)
        }
        #expect(points > 30, "the workload has \(points) changing operations")
    }

    @Test func batchesAppliedWhileTheirRecordIsWrittenLoseNothingPromisedAtAnyPowerLoss() async throws {
        let points = try await Self.sweep("applying while writing", batches: Array(1...Self.batches)) {
            await Self.singleWriter($0, .always, $1, applyingWhileWriting: true)
        }
        #expect(points > 30, "the workload has \(points) changing operations")
    }

    @Test func aDeferredApplyIsKeptOnceALaterApplyReturnedAndNeverWithoutItsPredecessors() async throws {
        // prefixOnly: what survives is always batches 1…k (a deferred batch never lost while a later one is kept),
        // and k covers every batch acknowledged before the last durable apply, compaction or close returned.
        let points = try await Self.sweep("deferred", batches: Array(1...Self.batches), prefixOnly: true) {
            await Self.singleWriter($0, .always, $1, deferring: true)
        }
        #expect(points > 25, "the workload has \(points) changing operations")
    }

    @Test func groupCommitLosesNothingAcknowledgedAtAnyPowerLoss() async throws {
        let all = (0..<4).flatMap { writer in (1...4).map { writer * 10 + $0 } }
        let points = try await Self.sweep("grouped", batches: all) { await Self.groupedWriters($0, $1) }
        #expect(points > 10, "the workload has \(points) changing operations")
    }
}
