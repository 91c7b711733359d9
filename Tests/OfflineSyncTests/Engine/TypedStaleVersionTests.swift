import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// A typed model without system properties takes them from the local item inside the write step: a pull that lands
/// between the app's call and the write cannot make the write carry a version the store no longer holds.
struct TypedStaleVersionTests {
    struct Note: Codable, Sendable {
        var id: String
        var text: String
    }

    /// A store that, on the first read of item "a" after it is armed, runs `race` (a pull) before the read returns,
    /// and records every local write (an apply that also writes the queue) of "a" whose version is not the one the
    /// store held when it was applied.
    actor RacingStore: SyncContextDataSource {
        let base: any SyncContextDataSource
        private var race: (@Sendable () async -> Void)?
        private(set) var staleWrites: [String] = []
        init(_ base: any SyncContextDataSource) { self.base = base }

        func arm(_ race: @escaping @Sendable () async -> Void) { self.race = race }

        func read(table: String, id: String) async throws -> JSONObject? {
            let item = try await base.read(table: table, id: id)
            if table == "Note", id == "a", let race {
                self.race = nil
                await race()
            }
            return item
        }

        func read(_ query: Query) async throws -> QueryResult { try await base.read(query) }

        func apply(_ changes: [StoreChange]) async throws {
            let writesQueue = changes.contains { if case .upsert(EngineTables.operations, _) = $0 { true } else { false } }
            if writesQueue {
                for case .upsert("Note", let items) in changes {
                    for item in items where item["id"] == "a" {
                        let held = try await base.read(table: "Note", id: "a")
                        if held?["version"] != item["version"] {
                            staleWrites.append("wrote \(item["version"].map { "\($0)" } ?? "nil") over \(held?["version"].map { "\($0)" } ?? "nil")")
                        }
                    }
                }
            }
            try await base.apply(changes)
        }
    }

    @Test func aPullBetweenTheCallAndTheWriteCannotMakeATypedUpdateStale() async throws {
        let remote = InMemoryRemote()
        await remote.seed([["id": "a", "text": "server"]], table: "Note")
        let store = RacingStore(InMemoryDataSource())
        let context = SyncContext(dataSource: store, remote: remote)
        let notes = context.table(Note.self, name: "Note")
        try await notes.pull()
        await remote.serverUpdate(id: "a", table: "Note", fields: ["text": "another device"])
        let pulled = LockedValue(false)
        await store.arm {
            let pull = Task {
                try await context.table("Note").pull()
                pulled.withLock { $0 = true }
            }
            // Until the pull has landed (nothing held it back) or waits to store its page behind the write step,
            // which holds the context's transactions: either way the race has run, however slow the pull.
            #expect(await eventually {
                if pulled.current { return true }
                return await context.transactionTurns.waitingCount > 0
            })
            _ = pull
        }
        try await notes.update(Note(id: "a", text: "mine"))
        #expect(await store.staleWrites.isEmpty)
        #expect(await eventually { pulled.current }, "the pull lands once the write step has ended")
    }
}
