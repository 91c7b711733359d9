import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal

/// Power loss at every changing file operation of an encrypted store's life (``PowerLossFileSystem``, several seeded
/// disks each): no disk it can leave holds a readable run of any item, and a re-key always leaves a store that
/// opens with the old cipher or the new one, holding everything acknowledged.
struct EncryptedPowerLossTests {
    static let secret = "Zebra-Ünïcode-marker-9317"
    static let idMarker = "IdMarkerValue-5150"

    /// An item with the marker in a string, a field name, a nested object and array, and its id.
    static func item(_ n: Int, version: Int) -> JSONObject {
        ["id": .string("\(idMarker)-\(n)"), "text": .string("\(secret) v\(version)"), "k-\(secret)": .int(Int64(version)),
         "nested": ["inner": .string(secret), "list": [.string(secret), .string("\(n)")]], "number": .string("\(version)\(secret)")]
    }

    /// Inserts, updates, deletes, compacts, updates again, deletes with a filter, and closes.
    static func markerWorkload(_ directory: TemporaryDirectory, _ fileSystem: PowerLossFileSystem) async -> Bool {
        var store: JournalDataSource?
        do {
            let opened = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher, fileSystem: fileSystem)
            store = opened
            try await opened.apply([.upsert(table: "T", items: (0..<6).map { item($0, version: 1) })])
            try await opened.apply([.upsert(table: "T", items: (0..<3).map { item($0, version: 2) })])
            try await opened.apply([.delete(table: "T", ids: ["\(idMarker)-4", "\(idMarker)-5"])])
            try await opened.compact()
            try await opened.apply([.upsert(table: "T", items: [item(0, version: 3)])])
            try await opened.apply([.deleteAll(table: "T", matching: Field("text") == .string("\(secret) v2"))])
            try await opened.close()
        } catch {}
        if let store { try? await store.close() }
        return fileSystem.poweredOff
    }

    @Test func noDiskAPowerLossLeavesHoldsARunOfAnItemAndEachOpensWithTheKey() async throws {
        var point = 0
        while true {
            var poweredOff = false
            for outcome in 0..<PowerLossTests.outcomesPerPoint {
                let directory = TemporaryDirectory()
                defer { directory.remove() }
                let fileSystem = PowerLossFileSystem(failingAt: point)
                poweredOff = await Self.markerWorkload(directory, fileSystem)
                guard poweredOff else { break }
                let seed = UInt64(point * 1000 + outcome)
                let disk = fileSystem.diskAfterPowerLoss(in: directory.storePath, seed: seed)
                try Self.materialize(disk, at: directory)
                #expect(try EncryptedStore.leaks(of: Self.secret, at: directory.storePath) == [], "operation \(point), seed \(seed)")
                #expect(try EncryptedStore.leaks(of: Self.idMarker, at: directory.storePath) == [], "operation \(point), seed \(seed)")
                guard disk["CURRENT"] != nil else { continue }
                do {
                    let store = try await EncryptedStore.open(directory.storePath, cipher: EncryptedStore.cipher)
                    try await store.close()
                } catch {
                    Issue.record("operation \(point), seed \(seed): the store does not open: \(error)")
                }
            }
            if !poweredOff { break }
            point += 1
        }
        #expect(point > 20, "the workload has \(point) changing operations")
    }

    /// Replaces the store's directory by `disk`.
    static func materialize(_ disk: [String: [UInt8]], at directory: TemporaryDirectory) throws {
        try? FileManager.default.removeItem(at: directory.store)
        try FileManager.default.createDirectory(at: directory.store, withIntermediateDirectories: true)
        for (name, bytes) in disk { try writeBytes(bytes, to: directory.store.appendingPathComponent(name).path) }
    }

    /// What the re-key workload got done before the power failed.
    struct RekeyRun {
        var acknowledged: Set<Int> = []
        var rekeyed = false
        var poweredOff = false
    }

    /// A store under `old`: batches 1…3, re-key to `new`, batches 4 and 5, close; all through `fileSystem`.
    static func rekeyWorkload(_ directory: TemporaryDirectory, _ fileSystem: PowerLossFileSystem,
                              from old: (any StoreCipher)?, to new: (any StoreCipher)?) async throws -> RekeyRun {
        var run = RekeyRun()
        var store: JournalDataSource?
        do {
            let opened = try await EncryptedStore.open(directory.storePath, cipher: old, fileSystem: fileSystem)
            store = opened
            for n in 1...5 {
                if n == 4 {
                    try await opened.rekey(to: new)
                    run.rekeyed = true
                }
                try await opened.apply(Sample.batch(n))
                run.acknowledged.insert(n)
            }
            try await opened.close()
        } catch {}
        if let store { try? await store.close() }
        run.poweredOff = fileSystem.poweredOff
        return run
    }

    static let transitions: [(String, (any StoreCipher)?, (any StoreCipher)?)] = [
        ("encrypt", nil, EncryptedStore.cipher),
        ("re-key", EncryptedStore.cipher, EncryptedStore.otherCipher),
        ("decrypt", EncryptedStore.cipher, nil),
    ]

    @Test(arguments: 0..<3)
    func aPowerLossDuringARekeyLeavesAStoreThatOpensWithTheOldCipherOrTheNew(transition: Int) async throws {
        let (label, old, new) = Self.transitions[transition]
        var point = 0
        var opened: Set<String> = []
        sweep: while true {
            for outcome in 0..<PowerLossTests.outcomesPerPoint {
                let directory = TemporaryDirectory()
                defer { directory.remove() }
                let fileSystem = PowerLossFileSystem(failingAt: point)
                let run = try await Self.rekeyWorkload(directory, fileSystem, from: old, to: new)
                if !run.poweredOff { break sweep }
                let seed = UInt64(point * 1000 + outcome)
                try Self.materialize(fileSystem.diskAfterPowerLoss(in: directory.storePath, seed: seed), at: directory)
                let files = try EncryptedStore.files(at: directory.storePath)
                let withOld = try? await EncryptedStore.open(directory.storePath, cipher: old)
                var store = withOld
                if withOld == nil {
                    // A refused open changes no file.
                    #expect(try EncryptedStore.files(at: directory.storePath) == files, "\(label), operation \(point), seed \(seed)")
                    store = try? await EncryptedStore.open(directory.storePath, cipher: new)
                } else if new != nil || old != nil {
                    #expect(!run.rekeyed, "\(label), operation \(point), seed \(seed): the re-key returned but the old cipher opens the store")
                }
                guard let store else {
                    Issue.record("\(label), operation \(point), seed \(seed): the store opens with neither cipher")
                    continue
                }
                opened.insert(withOld == nil ? "new" : "old")
                for n in run.acknowledged {
                    #expect(try await Sample.holds(store, batch: n), "\(label), operation \(point), seed \(seed): lost batch \(n)")
                }
                try await store.close()
            }
            point += 1
        }
        #expect(opened == ["old", "new"], "\(label): power lost before and after the switch: \(opened)")
        #expect(point > 8, "\(label): the re-key has \(point) changing operations")
    }
}
