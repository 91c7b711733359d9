import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Power loss when the disk writes pages back out of order: at every changing file operation of a workload, every
/// file keeps any subset of the 4 KiB pages it changed since its last sync
/// (``PowerLossFileSystem/disksAfterPowerLoss(in:keepingAnySubsetOf:seed:)``), so a later page of the journal can
/// survive an earlier one. The store must open on every such disk (a hole after the last durable record is a torn
/// tail), keep a prefix of the batches, and keep every batch its durability promised.
struct PowerLossPageOrderTests {
    /// Disks per crash point: every subset of the changed pages when there are at most this many, else this many
    /// seeded ones; `OFFLINESYNC_FUZZ=<factor>` multiplies it.
    static let disksPerPoint = FuzzBudget.cases(8)
    static let batches = 12

    /// Batch n: two items of about 1 KiB each, so that the journal's records straddle its pages.
    static func batch(_ n: Int) -> [StoreChange] {
        [.upsert(table: "T", items: [Sample.item("\(n)-a", Int64(n), text: String(repeating: "page \(n) ", count: 120)),
                                     Sample.item("\(n)-b", Int64(n), text: String(repeating: "b", count: 900))])]
    }

    /// Batches 1…12 in order, a compaction after batch 6, close. With `deferring`, two of every three batches go
    /// through `applyDeferringDurability` (as pulled pages and a push's bookkeeping do).
    static func workload(_ directory: TemporaryDirectory, _ durability: Durability, deferring: Bool,
                         _ fileSystem: PowerLossFileSystem) async -> PowerLossTests.Run {
        var run = PowerLossTests.Run()
        var store: JournalDataSource?
        do {
            var options = JournalOptions(durability: durability)
            options.automaticCompaction = false
            let opened = try await JournalDataSource(path: directory.storePath, options: options, fileSystem: fileSystem)
            store = opened
            for n in 1...batches {
                let deferred = deferring && !n.isMultiple(of: 3)
                if deferred { try await opened.applyDeferringDurability(batch(n)) } else { try await opened.apply(batch(n)) }
                run.acknowledged.insert(n)
                if durability != .buffered, !deferred { run.synced = run.acknowledged }
                if n == 6 {
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

    /// Runs the workload with the power failing at every changing operation in turn, and opens every disk each
    /// point leaves; returns how many disks were checked.
    static func sweep(_ durability: Durability, deferring: Bool) async throws -> (disks: Int, points: Int) {
        let label = "\(durability)\(deferring ? ", deferring" : "")"
        var (point, checked, refused) = (0, 0, 0)
        while true {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            let fileSystem = PowerLossFileSystem(failingAt: point)
            let run = await workload(directory, durability, deferring: deferring, fileSystem)
            if !run.poweredOff { break }
            for (index, disk) in fileSystem.disksAfterPowerLoss(in: directory.storePath, keepingAnySubsetOf: disksPerPoint,
                                                                seed: UInt64(point)).enumerated() {
                checked += 1
                try? FileManager.default.removeItem(at: directory.store)
                try FileManager.default.createDirectory(at: directory.store, withIntermediateDirectories: true)
                for (name, bytes) in disk { try writeBytes(bytes, to: directory.store.appendingPathComponent(name).path) }
                let present: [Int]
                do {
                    present = try await Sample.heldBatches(at: directory.storePath, among: 1...batches)
                } catch {
                    refused += 1
                    if refused <= 3 { Issue.record("\(label): power lost at operation \(point), disk \(index): the store does not open: \(error)") }
                    continue
                }
                #expect(run.synced.isSubset(of: Set(present)), "\(label), operation \(point), disk \(index): lost \(run.synced.subtracting(present).sorted())")
                if let last = present.max() {
                    #expect(present == Array(1...last), "\(label), operation \(point), disk \(index): kept \(present), not a prefix")
                }
            }
            point += 1
        }
        #expect(refused == 0, "\(label): \(refused) of \(checked) crash states refuse to open")
        return (checked, point)
    }

    @Test(arguments: [(Durability.buffered, false), (.always, true), (.always, false), (.grouped, false)])
    func everyDiskAnOutOfOrderWriteBackLeavesOpensWithEverythingPromised(durability: Durability, deferring: Bool) async throws {
        let (disks, points) = try await Self.sweep(durability, deferring: deferring)
        #expect(points > 25, "the workload has \(points) changing operations")
        #expect(disks > points, "\(disks) disks for \(points) crash points")
    }
}
