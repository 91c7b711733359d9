import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Progress reports of push and pull.
struct SyncProgressTests {
    /// Collects the reports of `action` (the stream is read after the action finished: it buffers).
    private func reports(_ context: SyncContext, _ action: () async throws -> Void) async throws -> [SyncProgress] {
        let stream = await context.progressUpdates()
        try? await action()
        var collected: [SyncProgress] = []
        for await progress in stream {
            collected.append(progress)
            if progress.phase == .finished || progress.phase == .failed { break }
        }
        return collected
    }

    @Test func pushReportsEachOperationAgainstTheQueuedTotal() async throws {
        let fixture = try await EngineFixture(.inMemory)
        for id in ["a", "b", "c"] { try await fixture.todo.insert(["id": .string(id)]) }
        let events = try await reports(fixture.context) { try await fixture.context.push() }
        #expect(events.map(\.phase) == [.started, .advanced, .advanced, .advanced, .finished])
        #expect(events.map(\.completed) == [0, 1, 2, 3, 3])
        #expect(events.allSatisfy { $0.total == 3 && $0.activity == .push })
        #expect(events.last?.fractionCompleted == 1)
    }

    @Test func aFailedPushEndsWithAFailedReport() async throws {
        let fixture = try await EngineFixture(.inMemory)
        try await fixture.todo.insert(["id": "a"])
        await fixture.remote.failNext(1, with: .network("down"))
        let events = try await reports(fixture.context) { try await fixture.context.push() }
        #expect(events.last?.phase == .failed)
    }

    @Test func pullReportsPagesAndRecordsWithTheServerTotal() async throws {
        let fixture = try await EngineFixture(.inMemory, pageSize: 2)
        await fixture.remote.seed((1...5).map { ["id": .string("r\($0)")] }, table: "TodoItem")
        let events = try await reports(fixture.context) {
            try await fixture.todo.pull(settings: PullSettings(pageSize: 2, requestsTotalCount: true).oneAtATime())
        }
        #expect(events.map(\.phase) == [.started, .advanced, .advanced, .advanced, .advanced, .finished])
        #expect(events.map(\.completed) == [0, 2, 4, 5, 5, 5])
        #expect(events.map(\.pages) == [0, 1, 2, 3, 4, 4])
        #expect(events.last?.total == 5)
        #expect(events.first?.activity == .pull(table: "TodoItem", queryId: nil))
        #expect(await fixture.remote.requestLog.compactMap(\.query?.includeTotalCount) == [true, false, false, false])
    }

    @Test func pullWithoutCountSettingHasNoTotalUnlessTopIsSet() async throws {
        let fixture = try await EngineFixture(.inMemory)
        await fixture.remote.seed([["id": "a"]], table: "TodoItem")
        let events = try await reports(fixture.context) { try await fixture.todo.pull() }
        #expect(events.allSatisfy { $0.total == nil })
        var query = fixture.todo.query()
        query.top = 10
        let bounded = try await reports(fixture.context) { try await fixture.todo.pull(query) }
        #expect(bounded.first?.total == 10)
    }

    @Test func fractionIsNilWithoutTotalAndClamped() {
        #expect(SyncProgress(activity: .push, phase: .advanced, completed: 1, total: nil, pages: 0).fractionCompleted == nil)
        #expect(SyncProgress(activity: .push, phase: .advanced, completed: 5, total: 4, pages: 0).fractionCompleted == 1)
        #expect(SyncProgress(activity: .push, phase: .advanced, completed: 1, total: 4, pages: 0).fractionCompleted == 0.25)
    }
}
