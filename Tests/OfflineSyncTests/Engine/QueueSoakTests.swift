#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import OfflineSync
import OfflineSyncTesting

/// Concurrent writers across two tables while push and pull loop against a back end that fails a share of the
/// calls, lost answers included. Once the faults stop, one push drains the queue and a pull leaves the store equal
/// to the server, each item as its writer's last write left it, and no deleted item back.
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
            if roll < 8 {
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
        let lastWrites = try await withThrowingTaskGroup(of: LastWrites.self) { group in
            for writer in 0..<4 { group.addTask { try await Self.write(context, writer: writer, seed: seed) } }
            return try await group.reduce(into: LastWrites()) { $0.merge($1) { _, new in new } }
        }
        pusher.cancel()
        puller.cancel()
        _ = await (pusher.value, puller.value)
        await flaky.stopFaults()
        #expect((await flaky.injected[.lostAnswer] ?? 0) > 0, "seed \(seed): the run lost no answer")

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
    }
}
