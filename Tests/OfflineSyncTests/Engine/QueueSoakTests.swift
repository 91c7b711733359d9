#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Concurrent writers (single writes and `write` batches) across two tables while push and pull loop against a
/// back end that fails a share of the calls: lost answers, 503s, 401s and offline periods. Throughout, no item has
/// more queued operations than collapsing allows. Once the faults stop, one push drains the queue and a pull leaves
/// the store equal to the server, each item as its writer's last write left it, no deleted item back, and the
/// journal store verifies.
///
/// `OFFLINESYNC_SOAK=<steps>` runs each writer for that many steps instead of the CI default.
struct QueueSoakTests {
    static let tables = ["alpha", "beta"]
    static let steps = ProcessInfo.processInfo.environment["OFFLINESYNC_SOAK"].flatMap { Int($0) } ?? 40

    /// The last write of one writer to each of its items: the content it left, or nil once deleted.
    typealias LastWrites = [String: JSONObject?]

    /// Writer `writer`: inserts new items, updates and deletes its own items, in both tables.
    private static func write(_ context: SyncContext, writer: Int, seed: UInt64) async throws -> LastWrites {
        var generator = SplitMix64(seed: seed &+ UInt64(writer) &* 1_000_003)
        var live: [String: [String]] = [:]
        var last: LastWrites = [:]
        var inserted = 0
        for step in 0..<steps {
            let table = tables[Int(generator.next() % 2)]
            let table_ = context.table(table)
            let ids = live[table, default: []]
            let roll = generator.next() % 10
            if roll == 9 {
                // One `write` batch: a new item in each table, both queued or neither.
                var items: [(table: String, id: String, item: JSONObject)] = []
                for batchTable in tables {
                    inserted += 1
                    let id = "w\(writer)-\(inserted)"
                    items.append((batchTable, id, ["id": .string(id), "text": .string("w\(writer) batch \(step)"), "n": .int(Int64(step))]))
                }
                let batchItems = items
                try await context.write { batch in
                    for entry in batchItems { _ = try batch.insert(entry.item, into: entry.table) }
                }
                for entry in items {
                    live[entry.table, default: []].append(entry.id)
                    last[entry.table + "/" + entry.id] = entry.item
                }
                continue
            }
            if ids.isEmpty || roll < 4 {
                inserted += 1
                let id = "w\(writer)-\(inserted)"
                let item: JSONObject = ["id": .string(id), "text": .string("w\(writer) step \(step)"), "n": .int(Int64(step))]
                try await table_.insert(item)
                live[table, default: []].append(id)
                last[table + "/" + id] = item
                continue
            }
            let index = Int(generator.next() % UInt64(ids.count))
            let id = ids[index]
            let local = try #require(try await table_.read(id: id), "writer \(writer): \(table)/\(id) is missing locally")
            if roll < 7 {
                var item = local
                item["text"] = .string("w\(writer) step \(step)")
                item["n"] = .int(Int64(step))
                try await table_.update(item)
                last[table + "/" + id] = SystemProperties.removingAll(from: item)
            } else {
                try await table_.delete(local)
                live[table]?.remove(at: index)
                last[table + "/" + id] = .some(nil)
            }
            await Task.yield()
        }
        return last
    }

    /// Loops `body` (errors expected) until the task is cancelled.
    private static func loop(_ body: @escaping @Sendable () async throws -> Void) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                try? await body()
                await Task.yield()
            }
        }
    }

    @Test(arguments: StoreKind.allCases, [1, 2, 3] as [UInt64])
    func afterTheFaultsStopTheQueueDrainsAndStoreAndServerHoldEveryLastWrite(_ kind: StoreKind, _ seed: UInt64) async throws {
        let server = InMemoryRemote(pageSize: 7)
        let flaky = FlakyRemote(server, seed: seed)
        let fixture = try await EngineFixture(kind, remote: server, wrap: { _ in flaky })
        let context = fixture.context
        let pusher = Self.loop { try await context.push() }
        let puller = Self.loop {
            for table in Self.tables { try await context.table(table).pull(queryId: "all-" + table) }
        }
        // Throughout: an item never has more than two queued operations (one being sent, one collecting every
        // write made meanwhile); more would mean writes that should have collapsed did not.
        let checker = Self.loop {
            let operations = try await context.pendingOperations()
            let perItem = Dictionary(grouping: operations) { "\($0.table)/\($0.itemId.lowercased())" }
            for (item, queued) in perItem where queued.count > 2 {
                Issue.record("seed \(seed): \(item) has \(queued.count) queued operations: \(queued.map(\.kind))")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        var lastWrites = try await withThrowingTaskGroup(of: LastWrites.self) { group in
            for writer in 0..<4 { group.addTask { try await Self.write(context, writer: writer, seed: seed) } }
            return try await group.reduce(into: LastWrites()) { $0.merge($1) { _, new in new } }
        }
        // How many writes the loops pushed depends on the machine's speed: on a fast one the writers may end before
        // a write's answer was lost. Write on, under the same faults, until one was (bounded), so that every run
        // covers lost answers.
        var extra = 0
        while (await flaky.injected[.lostAnswer] ?? 0) == 0, extra < 500 {
            let item: JSONObject = ["id": .string("extra-\(extra)"), "text": "until an answer is lost", "n": .int(Int64(extra))]
            try await context.table(Self.tables[0]).insert(item)
            lastWrites[Self.tables[0] + "/extra-\(extra)"] = item
            extra += 1
            _ = try? await context.push()
        }
        pusher.cancel()
        puller.cancel()
        checker.cancel()
        _ = await (pusher.value, puller.value, checker.value)
        await flaky.stopFaults()
        #expect((await flaky.injected[.lostAnswer] ?? 0) > 0, "seed \(seed): the run lost no answer in \(extra) more writes")

        do {
            try await context.push()
        } catch let error as PushError {
            Issue.record("seed \(seed): the push after the faults failed: \(error.errors.map(\.description))")
        }
        #expect(try await context.pendingOperations().isEmpty, "seed \(seed)")
        #expect(try await context.operationErrors().isEmpty, "seed \(seed)")
        for table in Self.tables { try await context.table(table).pull(queryId: "all-" + table) }

        for table in Self.tables {
            let local = try await fixture.rows(table)
            let remote = await server.items(table: table)
            #expect(local == remote, "seed \(seed): \(table) differs between the store and the server")
            let localById = Dictionary(uniqueKeysWithValues: local.compactMap { row in row["id"]?.stringValue.map { ($0, row) } })
            for (key, expected) in lastWrites where key.hasPrefix(table + "/") {
                let id = String(key.dropFirst(table.count + 1))
                let held = localById[id].map(SystemProperties.removingAll(from:))
                #expect(held == expected, "seed \(seed): \(key) holds \(String(describing: held)), last written \(String(describing: expected))")
            }
            #expect(localById.keys.allSatisfy { lastWrites[table + "/" + $0] != nil }, "seed \(seed): \(table) holds an item nobody wrote")
        }
        for fault in [FlakyRemote.Fault.unauthorized, .offline] {
            #expect((await flaky.injected[fault] ?? 0) > 0, "seed \(seed): no \(fault) was injected")
        }
        if let journal = fixture.store.dataSource as? JournalDataSource, let lease = fixture.store.lease {
            try await journal.close()
            let verification = try await JournalDataSource.verify(directory: lease.directory.url)
            #expect(verification.isSound, "seed \(seed): \(verification.problems)")
        }
    }
}
