import Testing
@testable import OfflineSync
import OfflineSyncTesting

/// Cancelling a pull (with its pre-push) at each point leaves a consistent store, and a follow-up pull ends
/// well (model-system.md §12.4–12.5).
struct CancellationTests {
    struct Point: Sendable, CustomTestStringConvertible {
        var method: RemoteMethod
        var at: SuspendingRemote.Point
        var testDescription: String { "\(method.rawValue) \(at)" }
    }

    static let points = [Point(method: .insert, at: .beforeServer), Point(method: .insert, at: .afterServer),
                         Point(method: .read, at: .beforeServer), Point(method: .read, at: .afterServer)]

    @Test(arguments: StoreKind.allCases, points)
    func cancellingAPullLeavesTheStoreConsistent(_ kind: StoreKind, _ point: Point) async throws {
        let remote = InMemoryRemote()
        let suspending = SuspendingRemote(remote)
        let fixture = try await EngineFixture(kind, remote: remote, wrap: { _ in suspending })
        await remote.seed([["id": "id2", "text": "server"], ["id": "id3", "text": "server"]], table: "TodoItem")
        try await fixture.todo.insert(["id": "id1", "text": "server"])
        await suspending.suspendNext(point.method, at: point.at)
        let pull = Task { try await fixture.todo.pull(queryId: "q") }
        await suspending.waitUntilSuspended()
        pull.cancel()
        await suspending.resume()
        await #expect(throws: (any Error).self) { try await pull.value }
        // Consistent: every local row is either pending (id1) or a server row stored whole.
        let pending = try await fixture.operations().map(\.itemId)
        for row in try await fixture.rows("TodoItem") {
            let id = try #require(row["id"]?.stringValue)
            if !pending.contains(id) { #expect(row == (await remote.item(id: id, table: "TodoItem"))) }
        }
        try await fixture.todo.pull(queryId: "q")
        let rows = try await fixture.rows("TodoItem")
        #expect(rows.count == 3 && rows.allSatisfy { $0["text"] == "server" && $0["version"] != nil })
        #expect(try await fixture.operations().isEmpty)
    }
}
