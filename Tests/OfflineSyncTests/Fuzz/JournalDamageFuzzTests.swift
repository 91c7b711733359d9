import Foundation
import OfflineSyncTesting
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Random damage to a real store (bit flips, truncations, inserted bytes, duplicated and spliced records, swapped
/// and deleted files), seeded: open gives a committed prefix of the batches or a typed error, `verify` agrees with
/// open, and `repair` followed by open always succeeds and never invents data.
struct JournalDamageFuzzTests {
    static let batches = 12

    /// A closed store (sealed by `cipher` when set): batches 1…6 in the snapshot, 7…12 in the journal; its files by name.
    static func template(cipher: (any StoreCipher)?) async throws -> [String: [UInt8]] {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await EncryptedStore.open(directory.storePath, cipher: cipher)
        for n in 1...6 { try await store.apply(Sample.batch(n)) }
        try await store.compact()
        for n in 7...batches { try await store.apply(Sample.batch(n)) }
        try await store.close()
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.storePath) where name != "lock" {
            files[name] = try fileBytes(directory.storePath + "/" + name)
        }
        return files
    }

    /// Applies one random kind of damage to `files`.
    static func damage(_ files: inout [String: [UInt8]], _ random: inout SplitMix64) {
        let names = files.keys.sorted()
        guard let name = names.randomElement(using: &random), var bytes = files[name] else { return }
        switch Int.random(in: 0..<7, using: &random) {
        case 0 where !bytes.isEmpty:
            bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
        case 1:
            bytes.removeSubrange(Int.random(in: 0...bytes.count, using: &random)...)
        case 2:
            let junk = (0..<Int.random(in: 1...16, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            bytes.insert(contentsOf: junk, at: Int.random(in: 0...bytes.count, using: &random))
        case 3, 4:
            // Duplicate a line in place (3) or splice a line of another file in (4).
            let donor = Int.random(in: 3...4, using: &random) == 3 ? bytes : files[names.randomElement(using: &random) ?? name] ?? []
            let lines = donor.split(separator: 0x0A, omittingEmptySubsequences: false).filter { !$0.isEmpty }
            guard let line = lines.randomElement(using: &random) else { return }
            let ends = [0] + bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
            bytes.insert(contentsOf: Array(line) + [0x0A], at: ends.randomElement(using: &random) ?? 0)
        case 5:
            guard let other = names.randomElement(using: &random), other != name, let otherBytes = files[other] else { return }
            files[other] = bytes
            bytes = otherBytes
        default:
            files[name] = nil
            return
        }
        files[name] = bytes
    }

    /// The batches `store` holds intact; records an issue for a batch held in part or with other contents.
    static func intactBatches(_ store: JournalDataSource, _ label: String) async throws -> [Int] {
        var present: [Int] = []
        for n in 1...batches {
            guard case .upsert(_, let expected) = Sample.batch(n)[0] else { continue }
            var found = 0
            for item in expected {
                guard let id = item["id"]?.stringValue, let stored = try await store.read(table: "T", id: id) else { continue }
                #expect(stored == item, "\(label): batch \(n) holds \(stored), never written")
                found += 1
            }
            #expect(found == 0 || found == expected.count, "\(label): batch \(n) is held in part")
            if found == expected.count { present.append(n) }
        }
        return present
    }

    static func expectPrefix(_ present: [Int], _ label: String) {
        if let last = present.max() { #expect(present == Array(1...last), "\(label): holds \(present), not a prefix") }
    }

    /// Opens the damaged store at `directory` before its snapshot loads (``JournalOptions/loadsSnapshotInBackground``):
    /// each item a read gives is the one written, whatever the damage (a read may throw instead), and once loaded the
    /// store holds what the eager open held (`eagerlyPresent`, nil when that open refused the store).
    static func expectNoWrongAnswerBeforeTheLoad(_ directory: TemporaryDirectory, cipher: (any StoreCipher)?,
                                                 eagerlyPresent: [Int]?, _ label: String) async throws {
        let store: JournalDataSource
        do {
            store = try await EncryptedStore.open(directory.storePath, cipher: cipher) { $0.loadsSnapshotInBackground = true }
        } catch is JournalError {
            #expect(eagerlyPresent == nil, "\(label): opened eagerly, refused before the load")
            return
        }
        for n in 1...batches {
            guard case .upsert(_, let expected) = Sample.batch(n)[0] else { continue }
            for item in expected {
                guard let id = item["id"]?.stringValue, let stored = (try? await store.read(table: "T", id: id)) ?? nil else { continue }
                #expect(stored == item, "\(label): before the load, batch \(n) holds \(stored), never written")
            }
        }
        if (try? await store.waitUntilLoaded()) != nil {
            #expect(try await intactBatches(store, label + " loaded in the background") == eagerlyPresent, "\(label)")
        } else {
            #expect(eagerlyPresent == nil, "\(label): the eager open gave \(eagerlyPresent ?? []), the load failed")
        }
        try? await store.close()
    }

    /// Plaintext and encrypted: a sealed record or block that fails authentication is damage like any other.
    @Test(arguments: [false, true])
    func damagedStoresOpenToAPrefixOrRefuseAndRepairAlwaysOpens(encrypted: Bool) async throws {
        let cipher: (any StoreCipher)? = encrypted ? EncryptedStore.cipher : nil
        let template = try await Self.template(cipher: cipher)
        var refused = 0
        for index in 0..<FuzzBudget.cases(120) {
            var random = SplitMix64(seed: UInt64(index))
            var files = template
            for _ in 0..<Int.random(in: 1...3, using: &random) { Self.damage(&files, &random) }
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            try FileManager.default.createDirectory(at: directory.store, withIntermediateDirectories: true)
            for (name, bytes) in files { try writeBytes(bytes, to: directory.storePath + "/" + name) }
            let label = "\(encrypted ? "encrypted " : "")case \(index)"

            let verification = try? await JournalDataSource.verify(directory: directory.store, cipher: cipher)
            var eagerlyPresent: [Int]?
            do {
                let store = try await EncryptedStore.open(directory.storePath, cipher: cipher)
                let present = try await Self.intactBatches(store, label)
                eagerlyPresent = present
                Self.expectPrefix(present, label)
                if verification?.isSound == true { #expect(present.count == Self.batches, "\(label): verify found no problem, open lost batches") }
                try await store.close()
            } catch let error as JournalError {
                refused += 1
                #expect(verification?.isSound != true, "\(label): open refused (\(error)) a store verify found sound")
            } catch {
                Issue.record("\(label): open threw an untyped error: \(error)")
            }

            try await Self.expectNoWrongAnswerBeforeTheLoad(directory, cipher: cipher, eagerlyPresent: eagerlyPresent, label)

            do {
                _ = try await JournalDataSource.repair(directory: directory.store, cipher: cipher)
            } catch let error as JournalError {
                // No journal header names the key and nothing sealed opens with it (a sealed snapshot cut short, say):
                // repair cannot tell the key from a wrong one, so it refuses, changing nothing.
                if error.code == .wrongKey && error.keyIdentifier == "(unknown)" { continue }
                if error.code != .notAStore { Issue.record("\(label): repair failed: \(error)") }
            }
            do {
                let store = try await EncryptedStore.open(directory.storePath, cipher: cipher)
                Self.expectPrefix(try await Self.intactBatches(store, label + " after repair"), label + " after repair")
                try await store.close()
            } catch {
                Issue.record("\(label): the store does not open after repair: \(error)")
            }
        }
        #expect(refused > 0, "some damage must be refused, or the damage does not reach the records")
    }
}
