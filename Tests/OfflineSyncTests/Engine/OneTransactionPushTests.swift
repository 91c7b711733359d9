import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// A push one at a time finishes each operation and prepares the next in one store transaction, when the next one
/// was marked ahead; a store refusing that transaction leaves the next operation free, as if never prepared.
struct OneTransactionPushTests {
    /// An in-memory store that counts its transactions and can refuse the applies after a number of them.
    actor CountingStore: SyncContextDataSource {
        private let inner = InMemoryDataSource()
        private(set) var transactions = 0
        private var appliesLeft: Int?
        struct Refused: Error {}

        func read(table: String, id: String) async throws -> JSONObject? { try await inner.read(table: table, id: id) }
        func read(_ query: Query) async throws -> QueryResult { try await inner.read(query) }
        func apply(_ changes: [StoreChange]) async throws {
            try spendApply()
            try await inner.apply(changes)
        }

        func transaction<T: Sendable>(isolation: isolated (any Actor)?,
                                      _ body: (inout StoreTransaction) async throws -> T) async throws -> T {
            await countTransaction()
            return try await inner.transaction(isolation: isolation) { transaction in
                let value = try await body(&transaction)
                if !transaction.changes.isEmpty { try await spendApply() }
                return value
            }
        }

        /// Refuses every apply after the next `count` ones (nil: none refused).
        func refuseApplies(after count: Int?) { appliesLeft = count }
        func resetCount() { transactions = 0 }
        private func countTransaction() { transactions += 1 }
        private func spendApply() throws {
            guard let left = appliesLeft else { return }
            guard left > 0 else { throw Refused() }
            appliesLeft = left - 1
        }
    }

    @Test func aPushOneAtATimeTakesOneTransactionPerOperation() async throws {
        let store = CountingStore()
        let remote = InMemoryRemote()
        let context = SyncContext(dataSource: store, remote: remote)
        for index in 0..<12 { try await context.table("TodoItem").insert(["id": .string("i\(index)"), "text": "x"]) }
        await store.resetCount()
        #expect(try await context.push().pushed == 12)
        // One to clear the errors, one to mark the first operation (and the rest ahead of their turn), then one per
        // operation: its finish and the next one's preparation. Two per operation before.
        #expect(await store.transactions == 12 + 2)
        #expect(await remote.items(table: "TodoItem").count == 12)
        #expect(try await context.pendingOperations().isEmpty)
    }

    @Test func anOperationPreparedWithARefusedFinishIsNotLeftInFlight() async throws {
        let store = CountingStore()
        let remote = InMemoryRemote()
        let context = SyncContext(dataSource: store, remote: remote)
        for id in ["a", "b", "c"] { try await context.table("TodoItem").insert(["id": .string(id), "text": "first"]) }
        // The push's applies: clearing the errors, marking the run, then a's finish, which b's preparation joins.
        await store.refuseApplies(after: 2)
        await #expect(throws: CountingStore.Refused.self) { try await context.push() }
        await store.refuseApplies(after: nil)
        #expect(await remote.requests == ["POST TodoItem/a"])
        // Were b still in flight, this edit would queue a second operation beside its insert.
        try await context.table("TodoItem").update(["id": "b", "text": "second"])
        #expect(try await context.pendingOperations().map(\.itemId) == ["a", "b", "c"])
        #expect(try await context.push().pushed == 3)
        #expect(await remote.item(id: "b", table: "TodoItem")?["text"] == "second")
    }
}
