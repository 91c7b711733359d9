import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// The transactions of the two shipped stores and the default one third-party stores get.
struct StoreTransactionTests {
    @Test(arguments: DataSourceConformance.checks)
    func aThirdPartyActorStoreConformsThroughTheDefaultTransaction(_ check: DataSourceConformance.Check) async throws {
        try await check.run { ForwardingStore() }
    }

    @Test func aValueTypeStoreConformsThroughTheDefaultTransaction() async throws {
        try await DataSourceConformance.check { ForwardingValueStore(inner: InMemoryDataSource()) }
    }

    @Test func theSuiteCatchesTransactionsThatInterleave() async throws {
        let check = try #require(DataSourceConformance.checks.first { $0.name.contains("lose no update") })
        await #expect(throws: ConformanceFailure.self) { try await check.run { InterleavingStore() } }
    }

    @Test func anApplyWaitsInTheInMemoryStoreWhileATransactionHoldsIt() async throws {
        let store = InMemoryDataSource()
        try await expectApplyHeldBack(store, waiting: { await store.writersWaiting })
    }

    @Test func anApplyWaitsInTheJournalStoreWhileATransactionHoldsIt() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        for durability in [Durability.always, .grouped] {
            let store = try await JournalDataSource(directory: directory.url, options: JournalOptions(durability: durability))
            try await store.apply([.deleteAll(table: "T", matching: nil)])
            try await expectApplyHeldBack(store, waiting: { await store.writersWaiting })
            try await store.close()
        }
    }

    @Test func aJournalTransactionReadsABatchThatWasStillBeingWrittenWhenItBegan() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = JournalOptions(durability: .grouped)
        options.writeThread = .dedicated
        let store = try await JournalDataSource(directory: directory.url, options: options)
        var caughtInFlight = 0
        for n in 0..<200 where caughtInFlight < 5 {
            let id = "item-\(n)"
            let apply = Task { try await store.apply([.upsert(table: "T", items: [["id": .string(id)]])]) }
            // Begin only while the batch is accepted but not yet written and applied.
            var inFlight = false
            for _ in 0..<1_000 where !inFlight {
                inFlight = await !store.pipeline.isDrained
                if !inFlight { await Task.yield() }
            }
            guard inFlight else {
                try await apply.value
                continue
            }
            caughtInFlight += 1
            let seen = try await store.transaction { try await $0.read(table: "T", id: id) }
            #expect(seen?["id"] == .string(id), "a transaction that began while \(id) was being written did not read it")
            try await apply.value
        }
        #expect(caughtInFlight > 0, "no batch was caught while being written")
        try await store.close()
    }

    @Test func aTransactionThatStagesNothingChangesNothing() async throws {
        let store = InMemoryDataSource()
        let value = try await store.transaction { _ in 42 }
        #expect(value == 42)
        #expect(try await store.tableNames().isEmpty)
    }

    /// Starts a transaction that reads an item, starts a plain apply of the same item once it holds the store, and
    /// checks that the apply waits: the transaction's read and write see only its own state, the apply lands after.
    private func expectApplyHeldBack(_ store: any SyncContextDataSource, waiting: @escaping @Sendable () async -> Int) async throws {
        try await store.apply([.upsert(table: "T", items: [["id": "1", "n": 1]])])
        let applied = try await store.transaction { transaction -> Task<Void, any Error> in
            let apply = Task { try await store.apply([.upsert(table: "T", items: [["id": "1", "n": 100]])]) }
            try await waitUntil { await waiting() == 1 }
            let n = try await transaction.read(table: "T", id: "1")?["n"]?.intValue
            #expect(n == 1, "the transaction read the item as it was")
            transaction.stage([.upsert(table: "T", items: [["id": "1", "n": .int((n ?? 0) + 1)]])])
            return apply
        }
        try await applied.value
        #expect(try await store.read(table: "T", id: "1")?["n"] == 100, "the waiting apply landed after the transaction")
    }

    /// Polls `condition` until it holds; fails after 30 s (a loaded machine is slow, a missed wakeup is forever).
    private func waitUntil(_ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !(await condition()) {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}

/// A third-party store with the protocol's default transaction.
private actor ForwardingStore: SyncContextDataSource {
    private let inner = InMemoryDataSource()
    func read(table: String, id: String) async throws -> JSONObject? { try await inner.read(table: table, id: id) }
    func read(_ query: Query) async throws -> QueryResult { try await inner.read(query) }
    func apply(_ changes: [StoreChange]) async throws { try await inner.apply(changes) }
}

/// A store that is a value type: it has no identity, so its transactions share one gate.
private struct ForwardingValueStore: SyncContextDataSource {
    let inner: InMemoryDataSource
    func read(table: String, id: String) async throws -> JSONObject? { try await inner.read(table: table, id: id) }
    func read(_ query: Query) async throws -> QueryResult { try await inner.read(query) }
    func apply(_ changes: [StoreChange]) async throws { try await inner.apply(changes) }
}

/// A broken store: its transactions read and apply with nothing holding other writers back.
private actor InterleavingStore: SyncContextDataSource {
    private let inner = InMemoryDataSource()
    func read(table: String, id: String) async throws -> JSONObject? { try await inner.read(table: table, id: id) }
    func read(_ query: Query) async throws -> QueryResult { try await inner.read(query) }
    func apply(_ changes: [StoreChange]) async throws { try await inner.apply(changes) }
    func transaction<T: Sendable>(isolation: isolated (any Actor)?,
                                  _ body: (inout StoreTransaction) async throws -> T) async throws -> T {
        var transaction = StoreTransaction(dataSource: self)
        let value = try await body(&transaction)
        try await apply(transaction.changes)
        return value
    }
}
