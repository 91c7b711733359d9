import Testing
import OfflineSync
import OfflineSyncTesting

/// The engine's refusals say their kind as a code and name the table, item and operation they concern.
struct SyncErrorTests {
    @Test func aDuplicateInsertNamesItsTableAndItem() async throws {
        let context = SyncContext(dataSource: InMemoryDataSource(), remote: InMemoryRemote())
        let table = context.table("TodoItem")
        try await table.insert(["id": "a"])
        try await context.push()
        let error = try await #require(throws: SyncError.self) { try await table.insert(["id": "a"]) }
        #expect(error.code == .duplicateInsert && error.table == "TodoItem" && error.itemId == "a")
        #expect(error == .duplicateInsert(table: "TodoItem", id: "a"))
    }

    @Test func aStaleResolutionNamesItsOperation() async throws {
        let remote = InMemoryRemote()
        let context = SyncContext(dataSource: InMemoryDataSource(), remote: remote)
        try await context.table("TodoItem").insert(["id": "a"])
        await remote.failNext(1, with: .server(status: 400, message: "no"))
        let push = try await #require(throws: PushError.self) { try await context.push() }
        let failed = try #require(push.errors.first)
        try await context.cancelAndDiscard(failed)
        let error = try await #require(throws: SyncError.self) { try await context.cancelAndDiscard(failed) }
        #expect(error.code == .operationNotFound)
        #expect(error.operationId == failed.operation.id && error.itemId == "a" && error.table == "TodoItem")
    }

    @Test func codesCompareByNameSoCallersSwitchWithADefault() {
        let code = SyncError.purgeBlocked(table: "T", pendingOperations: 2).code
        let handled: Bool
        switch code {
        case .purgeBlocked: handled = true
        default: handled = false
        }
        #expect(handled && code.rawValue == "purgeBlocked")
        #expect(SyncError.Code(rawValue: "purgeBlocked") == .purgeBlocked)
    }
}
