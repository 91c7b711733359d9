import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

struct JournalCompactionTests {
    @Test func compactionWritesAPlainJSONSnapshotAndAnEmptyJournal() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath)
        for n in 1...5 { try await store.apply(Sample.batch(n)) }
        try await store.apply([.upsert(table: "__config", items: [["id": "token", "value": 1.5]])])
        try await store.compact()
        let statistics = await store.statistics()
        #expect(statistics.generation == 2 && statistics.journalRecords == 0 && statistics.lastSequence == 6)
        try await store.apply(Sample.batch(6))
        try await store.close()

        let snapshot = try JSONValue(parsing: try fileBytes(directory.storePath + "/snapshot.2.json"))
        let object = try #require(snapshot.objectValue)
        #expect(object["snapshot"]?.objectValue?["lastSequence"] == 6)
        #expect(object["snapshot"]?.objectValue?["items"] == 11)
        #expect(object["tables"]?.objectValue?["T"]?.arrayValue?.count == 10)
        #expect(object["tables"]?.objectValue?["__config"] == [["id": "token", "value": 1.5]])
        #expect(!FileManager.default.fileExists(atPath: directory.storePath + "/journal.1.jsonl"))

        let reopened = try await JournalDataSource.open(directory.storePath)
        for n in 1...6 { #expect(try await Sample.holds(reopened, batch: n)) }
        #expect(await reopened.statistics().lastSequence == 7)
        try await reopened.compact()
        try await reopened.compact()
        #expect(await reopened.statistics().generation == 4)
        try await reopened.close()
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.storePath).sorted()
        #expect(names == ["CURRENT", "journal.4.jsonl", "lock", "snapshot.4.json", "snapshot.4.lookup"])
    }

    @Test func aSnapshotListsItemsInTheOrderOfTheirTablesFirstIndex() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = JournalOptions(durability: .always)
        options.indexes = [IndexDefinition(table: "T", fields: ["n"])]
        options.automaticCompaction = false
        let items: [JSONObject] = (0..<200).map { ["id": .string("i\($0)"), "n": .int(Int64(($0 * 7_919) % 50))] }
        let store = try await JournalDataSource(path: directory.storePath, options: options, fileSystem: POSIXFileSystem())
        try await store.apply([.upsert(table: "T", items: items)])
        try await store.compact()
        try await store.close()

        let names = try FileManager.default.contentsOfDirectory(atPath: directory.storePath)
        let snapshot = try #require(names.first { $0.hasPrefix("snapshot.") && $0.hasSuffix(".json") })
        let lines = String(decoding: try fileBytes(directory.storePath + "/" + snapshot), as: UTF8.self).split(separator: "\n")
        let listed: [Int64] = lines.compactMap { line in
            guard case .object(let item)? = try? JSONValue(parsing: Array(line.utf8).dropLastComma()),
                  case .int(let n)? = item["n"] else { return nil }
            return n
        }
        #expect(listed.count == 200)
        #expect(listed == listed.sorted(), "the snapshot's items are not in index order")

        // Loaded back, the index (whose sort had nothing to do) answers as a scan would.
        let reopened = try await JournalDataSource(path: directory.storePath, options: options, fileSystem: POSIXFileSystem())
        let query = Query(table: "T", filter: Field("n") >= 10, orderBy: [.descending("n")])
        #expect(try await reopened.explain(query).index != nil)
        let read = try await reopened.read(query).items, scanned = query.evaluate(over: items).items
        #expect(read.map { $0["n"] } == scanned.map { $0["n"] }, "not the order the query asks for")
        #expect(Set(read.map { $0["id"] }) == Set(scanned.map { $0["id"] }))
        try await reopened.close()
    }

    /// A snapshot's lines are written from the packed items straight into the writer's buffer: an item larger than
    /// the buffer, strings that need escapes and every kind of value must come back as they went in.
    @Test func aSnapshotWritesEveryKindOfValueAndItemsLargerThanItsBuffer() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let huge = String(repeating: "\u{1}x\"", count: SnapshotWriter.writeBytes / 2)
        let items = (0..<300).map { n -> JSONObject in
            var item: JSONObject = [:]
            item["id"] = .string(n % 2 == 0 ? "BDD73226-2FEB-4E95-A8EF-E333B26\(String(format: "%05d", n))" : "item \(n)")
            item["text"] = .string(n == 150 ? huge : "tab\tquote\"\u{0}é 🎉 \(n)")
            item["n"] = .int(Int64(n) * -7_919_000_000)
            item["x"] = n % 3 == 0 ? .double(Double(n) / 7) : .null
            item["flag"] = .bool(n % 5 == 0)
            item["at"] = .string("2026-11-29T09:29:49.\(String(format: "%03d", n % 1000))Z")
            item["v"] = n % 4 == 0 ? ["list": [1, "a"]] : "0b5d7f85"
            return item
        }
        let store = try await JournalDataSource.open(directory.storePath)
        try await store.apply([.upsert(table: "T", items: items)])
        try await store.compact()
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath)
        for item in items {
            guard case .string(let id)? = item["id"] else { continue }
            #expect(try await reopened.read(table: "T", id: id) == item, "\(id)")
        }
        try await reopened.close()
    }

    @Test func emptyStoreCompactsToAValidSnapshot() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath)
        try await store.compact()
        try await store.close()
        let snapshot = try JSONValue(parsing: try fileBytes(directory.storePath + "/snapshot.2.json"))
        #expect(snapshot.objectValue?["tables"] == .object([:]))
        let reopened = try await JournalDataSource.open(directory.storePath)
        #expect(await reopened.statistics().tables.isEmpty)
        try await reopened.close()
    }

    @Test func automaticCompactionStartsOnceHalfTheJournalIsGarbage() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath) { $0.compactionMinimumBytes = 2000 }
        // 20 batches written three times: 120 items upserted, 40 held.
        for _ in 0..<3 {
            for n in 1...20 { try await store.apply(Sample.batch(n)) }
        }
        #expect(await eventually { await store.statistics().generation > 1 })
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath)
        for n in 1...20 { #expect(try await Sample.holds(reopened, batch: n)) }
        try await reopened.close()
    }

    @Test func aReopenedStoreCountsTheUpsertsItsJournalReplayedTowardsCompaction() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // Half the garbage that starts a compaction is written before the reopen (60 items upserted, 40 held, no
        // compaction yet), half after: only counting the replayed upserts reaches 2 upserts per item held.
        let store = try await JournalDataSource.open(directory.storePath) { $0.compactionMinimumBytes = 2000 }
        for n in 1...20 { try await store.apply(Sample.batch(n)) }
        for n in 1...10 { try await store.apply(Sample.batch(n)) }
        #expect(await store.statistics().generation == 1)
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath) { $0.compactionMinimumBytes = 2000 }
        for n in 11...20 { try await reopened.apply(Sample.batch(n)) }
        #expect(await eventually { await reopened.statistics().generation > 1 })
        try await reopened.close()
    }

    @Test func aGrowingStoreIsNotRewrittenAndAnUpdatedOneIsOnceItsJournalOutgrowsTheSnapshot() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath) { $0.compactionMinimumBytes = 4_000 }
        func item(_ number: Int, version: Int) -> JSONObject {
            ["id": .string("item-\(number)"), "text": .string(String(repeating: "x", count: 60)), "version": .int(Int64(version))]
        }
        func settle() async {
            _ = await eventually {
                let busy = await store.isCompacting, scheduled = await store.compactionScheduled
                return !busy && !scheduled
            }
        }
        // An import: 60 batches of 20 new items (about 2 KB each), 30 times the minimum. Nothing in the journal is
        // garbage, so nothing is rewritten, where the first rule compacted at the minimum and each time the store
        // doubled.
        for batch in 0..<60 {
            try await store.apply([.upsert(table: "T", items: (0..<20).map { item(batch * 20 + $0, version: 0) })])
            await settle()
        }
        let afterImport = await store.statistics()
        #expect(afterImport.generation == 1, "no compaction while the store only grows")
        #expect(afterImport.journalBytes > 30 * 4_000)

        // Updates: the items stay as many, so the journal passes what a compaction would write.
        for round in 0..<4 {
            for batch in 0..<60 {
                try await store.apply([.upsert(table: "T", items: (0..<20).map { item(batch * 20 + $0, version: round + 1) })])
                await settle()
            }
        }
        #expect(await store.statistics().generation > 2)
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath)
        #expect(try await reopened.read(table: "T", id: "item-1199")?["version"] == .int(4))
        try await reopened.close()
    }

    @Test func aReopenedStoreScalesItsSnapshotByTheItemsTheSnapshotHoldsNotThoseItsJournalAdded() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        func batch(_ number: Int) -> [StoreChange] {
            [.upsert(table: "T", items: (0..<20).map { ["id": .string("item-\(number * 20 + $0)"), "text": .string(String(repeating: "x", count: 60))] })]
        }
        let store = try await JournalDataSource.open(directory.storePath)
        for number in 0..<20 { try await store.apply(batch(number)) }
        try await store.compact()
        // 600 more items in the journal: half again the snapshot's 400, so the journal outgrows the snapshot's size
        // but not what a compaction would write now (1,000 items).
        for number in 20..<50 { try await store.apply(batch(number)) }
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath) { $0.compactionMinimumBytes = 1_000 }
        let before = await reopened.statistics()
        #expect(before.journalBytes > before.snapshotBytes && before.generation == 2)
        try await reopened.apply(batch(50))
        _ = await eventually {
            let busy = await reopened.isCompacting, scheduled = await reopened.compactionScheduled
            return !busy && !scheduled
        }
        #expect(await reopened.statistics().generation == 2, "no compaction: the journal holds less than the items")
        try await reopened.close()
    }

    @Test func deletingHalfTheSnapshotsItemsCompactsWithoutWaitingForTheJournalToGrow() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath) { $0.compactionMinimumBytes = 1_000 }
        func id(_ number: Int) -> String { "item-\(number)" }
        for batch in 0..<40 {
            try await store.apply([.upsert(table: "T", items: (0..<20).map { ["id": .string(id(batch * 20 + $0)), "text": .string(String(repeating: "x", count: 60))] })])
        }
        try await store.compact()
        func settledGeneration() async -> Int64 {
            _ = await eventually {
                let busy = await store.isCompacting, scheduled = await store.compactionScheduled
                return !busy && !scheduled
            }
            return await store.statistics().generation
        }
        // A third of the 800 items: the snapshot is not yet half garbage, and the journal holds only their ids.
        try await store.apply([.delete(table: "T", ids: (0..<260).map(id))])
        #expect(await settledGeneration() == 2)
        try await store.apply([.delete(table: "T", ids: (260..<420).map(id))])
        #expect(await settledGeneration() == 3, "more than half of the snapshot's items deleted")
        #expect(await store.statistics().journalRecords == 0)
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath)
        #expect(try await reopened.read(Query(table: "T", top: 0, includeTotalCount: true)).totalCount == 380)
        #expect(try await reopened.read(table: "T", id: id(419)) == nil)
        #expect(try await reopened.read(table: "T", id: id(420)) != nil)
        try await reopened.close()
    }

    @Test func aFailedAutomaticCompactionIsCountedAndExplainedInTheStatistics() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        fileSystem.fail(.write, errno: 28, pathContains: "snapshot", times: 1000)
        var options = JournalOptions()
        options.compactionMinimumBytes = 2000
        let store = try await JournalDataSource(path: directory.storePath, options: options, fileSystem: fileSystem)
        for _ in 0..<3 {
            for n in 1...10 { try await store.apply(Sample.batch(n)) }
        }
        #expect(await eventually { await store.statistics().failedAutomaticCompactions > 0 })
        let statistics = await store.statistics()
        #expect(statistics.lastAutomaticCompactionError?.contains("errno 28") == true, "\(String(describing: statistics.lastAutomaticCompactionError))")
        fileSystem.heal()
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath)
        for n in 1...10 { #expect(try await Sample.holds(reopened, batch: n)) }
        try await reopened.close()
    }

    @Test func failedCompactionLeavesTheStoreUsable() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let store = try await JournalDataSource.open(directory.storePath, fileSystem: fileSystem)
        for n in 1...5 { try await store.apply(Sample.batch(n)) }
        fileSystem.fail(.write, errno: 28, pathContains: "snapshot")
        await #expect(throws: JournalError.self) { try await store.compact() }
        try await store.apply(Sample.batch(6))
        try await store.compact()
        try await store.apply(Sample.batch(7))
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath)
        for n in 1...7 { #expect(try await Sample.holds(reopened, batch: n)) }
        try await reopened.close()
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.storePath)
        #expect(!names.contains { $0.hasSuffix(".tmp") })
    }

    /// The changing file operations of one compaction, counted on a dry run.
    private func compactionSteps() async throws -> Int {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let store = try await JournalDataSource.open(directory.storePath, fileSystem: fileSystem)
        for n in 1...3 { try await store.apply(Sample.batch(n)) }
        let before = fileSystem.mutations.count
        try await store.compact()
        let steps = fileSystem.mutations.count - before
        try await store.close()
        return steps
    }

    @Test func crashAtEveryStepOfCompactionOpensComplete() async throws {
        let steps = try await compactionSteps()
        #expect(steps >= 12)
        for crashPoint in 0...steps {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            let fileSystem = FaultInjectingFileSystem()
            let store = try await JournalDataSource.open(directory.storePath, fileSystem: fileSystem)
            for n in 1...3 { try await store.apply(Sample.batch(n)) }
            fileSystem.crash(afterMutations: crashPoint)
            try? await store.compact()
            let acknowledged4 = (try? await store.apply(Sample.batch(4))) != nil
            #expect(fileSystem.hasCrashed, "every crash point lies within the compaction or the apply after it")
            try await store.close()

            let verification = try await JournalDataSource.verify(directory: directory.store)
            #expect(!verification.problems.contains { !$0.message.hasPrefix("torn tail") }, "crash point \(crashPoint): \(verification.problems)")
            let reopened = try await JournalDataSource.open(directory.storePath)
            for n in 1...3 { #expect(try await Sample.holds(reopened, batch: n), "crash point \(crashPoint)") }
            if acknowledged4 { #expect(try await Sample.holds(reopened, batch: 4), "crash point \(crashPoint)") }
            try await reopened.apply(Sample.batch(5))
            try await reopened.compact()
            try await reopened.close()
            let again = try await JournalDataSource.open(directory.storePath)
            #expect(try await Sample.holds(again, batch: 5))
            try await again.close()
        }
    }

    /// A store in `directory` holding batches 1 to 3, whose compaction is under way and held at the first write of a
    /// file whose path contains `path` until the test opens the gate of the returned file system.
    static func compactionHeld(_ directory: TemporaryDirectory, durability: Durability, atFirstWriteOf path: String) async throws
        -> (JournalDataSource, FaultInjectingFileSystem) {
        let fileSystem = FaultInjectingFileSystem()
        let store = try await JournalDataSource.open(directory.storePath, durability: durability, fileSystem: fileSystem)
        for n in 1...3 { try await store.apply(Sample.batch(n)) }
        await withCheckedContinuation { (entered: CheckedContinuation<Void, Never>) in
            fileSystem.closeGate(pathContains: path) { entered.resume() }
            Task { try await store.compact() }
        }
        return (store, fileSystem)
    }

    /// The held snapshot write blocks a thread of the store's blocking-I/O queue (not of Swift concurrency's shared
    /// pool) until the test opens the gate.
    @Test(arguments: [Durability.always, .grouped])
    func appliesCompleteWhileTheSnapshotIsBeingWritten(durability: Durability) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // Hold the snapshot's first write until the applies below are done.
        let (store, fileSystem) = try await Self.compactionHeld(directory, durability: durability, atFirstWriteOf: "snapshot")
        for n in 4...6 { try await store.apply(Sample.batch(n)) }
        #expect(try await Sample.holds(store, batch: 6))
        fileSystem.openGate()
        try await store.close()
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.storePath).sorted()
        #expect(names == ["CURRENT", "journal.2.jsonl", "lock", "snapshot.2.json", "snapshot.2.lookup"])
        let reopened = try await JournalDataSource.open(directory.storePath)
        for n in 1...6 { #expect(try await Sample.holds(reopened, batch: n)) }
        #expect(await reopened.statistics().journalRecords == 3)
        try await reopened.close()
    }

    /// Steps 1 and 2 (the new journal and the manifest naming it) run away from the actor: reads answer while the new
    /// journal's header is held, and an apply made meanwhile waits and lands in the new journal. (The limit ends a
    /// read that would wait for the held write; it is wide because a full suite can hold both of the pool's threads
    /// for over a minute, which once ended the `.grouped` case at a one-minute limit.)
    @Test(.timeLimit(.minutes(10)), arguments: [Durability.always, .grouped])
    func readsAnswerWhileACompactionStartsItsNewJournal(durability: Durability) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (store, fileSystem) = try await Self.compactionHeld(directory, durability: durability, atFirstWriteOf: "journal.2")
        #expect(try await Sample.holds(store, batch: 3))
        let applied = Task { try await store.apply(Sample.batch(4)) }
        #expect(try await !Sample.holds(store, batch: 4), "an apply written while the journals switch")
        fileSystem.openGate()
        try await applied.value
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath)
        for n in 1...4 { #expect(try await Sample.holds(reopened, batch: n)) }
        #expect(await reopened.statistics().journalRecords == 1)
        try await reopened.close()
    }

    @Test func crashAtEveryStepOfCreatingAStoreOpensEmpty() async throws {
        for crashPoint in 0..<12 {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            let fileSystem = FaultInjectingFileSystem()
            fileSystem.crash(afterMutations: crashPoint)
            if let store = try? await JournalDataSource.open(directory.storePath, fileSystem: fileSystem) {
                try? await store.apply(Sample.batch(1))
                try await store.close()
            }
            let reopened = try await JournalDataSource.open(directory.storePath)
            #expect(await reopened.statistics().lastSequence <= 1, "crash point \(crashPoint)")
            try await reopened.apply(Sample.batch(2))
            try await reopened.close()
        }
    }

    @Test func groupedWritersKeepGoingDuringCompaction() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath, durability: .grouped)
        for n in 0..<200 { try await store.apply(Sample.batch(10_000 + n)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask { for step in 0..<20 { try await store.apply(Sample.batch(writer * 100 + step)) } }
            }
            group.addTask { try await store.compact() }
            group.addTask { try await store.apply([.deleteAll(table: "T", matching: Field("value") >= 10_100)]) }
            try await group.waitForAll()
        }
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath)
        for writer in 0..<8 { for step in 0..<20 { #expect(try await Sample.holds(reopened, batch: writer * 100 + step)) } }
        for n in 0..<100 { #expect(try await Sample.holds(reopened, batch: 10_000 + n)) }
        for n in 100..<200 { #expect(try await !Sample.holds(reopened, batch: 10_000 + n)) }
        try await reopened.close()
    }
}

private extension Array where Element == UInt8 {
    /// The line without the comma that separates it from the next item.
    func dropLastComma() -> [UInt8] { last == UInt8(ascii: ",") ? Array(dropLast()) : self }
}
