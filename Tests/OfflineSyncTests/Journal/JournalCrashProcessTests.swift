import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Tests with a real child process (`journal-crash-child`, built with the tests): SIGKILL mid-write, and the
/// lock seen from another process.
struct JournalCrashProcessTests {
    /// Durability and rounds: `.always` is the contract's main promise; `.buffered` also survives a process crash;
    /// and `.always` on an encrypted store.
    @Test(arguments: [("always", 24, false), ("grouped", 8, false), ("buffered", 8, false), ("always", 12, true)])
    func killedWriterLosesNoAcknowledgedBatchAndLeavesNoPartialOne(durability: String, rounds: Int, encrypted: Bool) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var generator = SystemRandomNumberGenerator()
        var acknowledged = 0
        var newestGeneration: Int64 = 1
        for round in 0..<rounds {
            // A small compaction threshold makes kills land during compactions too.
            let child = try CrashChild(["write", directory.storePath, "3000", durability] + (encrypted ? [EncryptedStore.key.hexDigits] : []))
            let wanted = Int.random(in: 1...25, using: &generator)
            let lines = await child.readLines { $0.count >= wanted }
            await child.kill()
            #expect(!lines.contains { $0.hasPrefix("error") }, "round \(round): \(lines)")
            let acks = lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }
            acknowledged = max(acknowledged, acks.max() ?? 0)

            // The child declares this index too: reopened with it, the store must answer through it as a scan would.
            var options = JournalOptions()
            options.indexes = [IndexDefinition(table: "Crash", fields: ["batch"])]
            if encrypted { options.cipher = try ChaChaPolyCipher(key: EncryptedStore.key, keyIdentifier: "crash-child") }
            let store = try await JournalDataSource(directory: directory.store, options: options)
            let last = Int(try await store.read(table: "__config", id: "last")?["value"]?.intValue ?? 0)
            let newest = Query(table: "Crash", filter: Field("batch") >= 1, orderBy: [.descending("batch")], top: 6)
            #expect(try await store.explain(newest).index != nil)
            let expected = (max(last - 1, 1)...max(last, 1)).reversed().flatMap { batch in [batch, batch, batch] }.prefix(last == 0 ? 0 : 6)
            #expect(try await store.read(newest).items.compactMap { $0["batch"]?.intValue } == Array(expected).map(Int64.init),
                    "round \(round): the index walk finds the last batches")
            #expect(last >= acknowledged, "round \(round): acknowledged \(acknowledged), store holds up to \(last)")
            let items = try await store.read(Query(table: "Crash")).items
            #expect(items.count == last * 3, "round \(round): every batch up to \(last) entirely, none after")
            for batch in 1...max(last, 1) where last > 0 {
                let present = try await (0..<3).asyncCount { try await store.read(table: "Crash", id: "b\(batch)-\($0)") != nil }
                #expect(present == 3, "round \(round): batch \(batch) has \(present) of 3 items")
            }
            let churn = try await store.read(Query(table: "Churn")).items.compactMap { $0["batch"]?.intValue }
            #expect(churn == (last == 0 ? [] : Array(repeating: Int64(last), count: 8)), "round \(round): the rewritten items are all of batch \(last)")
            newestGeneration = max(newestGeneration, await store.statistics().generation)
            try await store.close()
        }
        #expect(acknowledged >= rounds)
        #expect(newestGeneration > 1, "the child's automatic compactions ran, so kills could land during them")
    }

    @Test func anotherProcessGetsTheLockedError() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource(directory: directory.store)
        let probe = try CrashChild(["probe", directory.storePath])
        let lines = await probe.readLines { !$0.isEmpty }
        await probe.waitUntilExit()
        #expect(lines == ["locked"])
        try await store.close()

        let second = try CrashChild(["probe", directory.storePath])
        let after = await second.readLines { !$0.isEmpty }
        await second.waitUntilExit()
        #expect(after == ["opened"])
    }
}

extension Range where Element == Int {
    /// How many elements satisfy the asynchronous `predicate`.
    func asyncCount(_ predicate: (Int) async throws -> Bool) async rethrows -> Int {
        var count = 0
        for element in self where try await predicate(element) { count += 1 }
        return count
    }
}
