import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Every engine step whose commit the store refuses leaves a context that keeps working: nothing stays in flight, and
/// what it knows of the store (queued operations, the status's count, errors, delta tokens) equals what a fresh context
/// opened on the same store knows; then a push and a pull bring the store level with the server.
struct RefusedStepTests {
    /// One engine step, run on a context whose store already holds pulled items `a` to `c`, a pending update of `a`,
    /// and a recorded error for an update of `e` (an item the server does not hold).
    enum Step: String, CaseIterable, CustomTestStringConvertible {
        case localWrite, writeBatch, pullPage, pullToken, purge, erase, migrate, keepAndUpdate, cancelAndUpdate, discard

        var testDescription: String { rawValue }

        func run(_ context: SyncContext) async throws {
            let table = context.table("T")
            switch self {
            case .localWrite: try await table.update(["id": "b", "text": "local"])
            case .writeBatch:
                try await context.write { batch in
                    try batch.update(["id": "b", "text": "batch"], in: "T")
                    try batch.insert(["id": "n", "text": "new"], into: "T")
                }
            case .pullPage, .pullToken:
                try await table.pull(queryId: "all", settings: PullSettings(pageSize: 2, pushFirst: .nothing))
            case .purge: try await table.purge(Query(table: "T", filter: Field("id") == "c"))
            case .erase: try await context.erase()
            case .migrate:
                try await context.migrate([Migration(version: 1, tables: ["T"]) { _, item in
                    var item = item
                    item["migrated"] = true
                    return item
                }])
            case .keepAndUpdate, .cancelAndUpdate, .discard:
                let error = try #require(try await context.operationErrors().first)
                switch self {
                case .keepAndUpdate: try await context.keepAndUpdate(error, with: ["id": "e", "text": "kept"])
                case .cancelAndUpdate: try await context.cancelAndUpdate(error, with: ["id": "e", "text": "server"])
                default: try await context.discard(error.operation, keepingLocalItem: false)
                }
            }
        }
    }

    /// What a context knows of its store, to compare with a fresh context's.
    struct Known: Equatable {
        var operations: [TableOperation]
        var pendingCount: Int
        var errors: [Int64]
        var tokens: [DeltaToken]
        var inFlight: Set<Int64>

        init(_ context: SyncContext) async throws {
            operations = try await context.pendingOperations()
            pendingCount = try await context.status().pendingOperations
            errors = try await context.operationErrors().map(\.operation.id)
            tokens = try await context.deltaTokens()
            inFlight = try await context.operationsInFlight()
        }
    }

    private func prepared() async throws -> (FailingDataSource, InMemoryRemote, SyncContext) {
        let store = FailingDataSource()
        let remote = InMemoryRemote()
        await remote.seed(["a", "b", "c"].map { ["id": .string($0), "text": "server"] }, table: "T")
        let context = SyncContext(dataSource: store, remote: remote)
        try await context.table("T").pull(queryId: "all")
        try await context.table("T").insert(["id": "e", "text": "local"])
        _ = try await context.push()
        _ = await remote.serverDelete(id: "e", table: "T")
        try await context.table("T").update(["id": "e", "text": "again"])
        _ = try? await context.push()   // 404: an error recorded for e
        try await context.table("T").update(["id": "a", "text": "mine"])
        await remote.seed([["id": "d", "text": "server"]], table: "T")
        return (store, remote, context)
    }

    @Test(arguments: Step.allCases)
    func aRefusedCommitLeavesAContextLikeAFreshOne(_ step: Step) async throws {
        for refused in 1...4 {
            let (store, remote, context) = try await prepared()
            await store.setFailingApplies(numbered: [await store.applyCalls + refused])
            _ = try? await step.run(context)
            await store.setFailingApplies(numbered: [])
            let fresh = SyncContext(dataSource: store, remote: remote)
            #expect(try await Known(context) == Known(fresh), "\(step), commit \(refused) refused")
            #expect(try await context.operationsInFlight().isEmpty)
            // The context goes on: a write, then a push and a pull.
            try await context.table("T").update(["id": "b", "text": "after"])
            _ = try? await context.push()
            try await context.table("T").pull(queryId: "all", settings: PullSettings(pushFirst: .nothing))
            #expect(try await context.table("T").read(id: "b")?["text"] == "after", "\(step), commit \(refused) refused")
        }
    }
}
