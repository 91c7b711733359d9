import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Cancelling a pull (with its pre-push) at each point leaves an exact, consistent store, and a follow-up pull
/// ends well.
///
/// Setup: `id1` is inserted locally (text "local"); the server holds `id2` and `id3`; every server timestamp is
/// one frozen instant, so the pull pages by `skip` in id order: [id1, id2], [id1, id2] again (the token moved),
/// [id3], then the empty page.
struct CancellationTests {
    static let instant = "2026-03-03T03:03:03.003Z"

    struct Point: Sendable, CustomTestStringConvertible {
        var method: RemoteMethod
        var at: SuspendingRemote.Point
        /// How many calls of `method` pass before the one that is cancelled.
        var skipping = 0
        /// What the remote does once the cancelled call resumes.
        var remote: SuspendingRemote.WhenCancelled
        /// Whether the insert of id1 reached the server.
        var id1OnServer: Bool
        /// Whether the insert of id1 is still queued (its answer never arrived).
        var id1Queued: Bool
        /// The local rows afterwards that are server copies (id1 is otherwise the unsent local item).
        var serverRows: [String]
        /// Whether the first page and its delta token were applied.
        var tokenStored: Bool

        var testDescription: String {
            "\(method.rawValue) \(at)\(skipping > 0 ? " of call \(skipping + 1)" : ""), remote \(remote.rawValue)"
        }
    }

    static let points: [Point] = [
        // The remote answers although the task is cancelled: the push finishes its only operation, and the pull
        // stops before its first page is stored.
        Point(method: .insert, at: .beforeServer, remote: .answers, id1OnServer: true,
              id1Queued: false, serverRows: ["id1"], tokenStored: false),
        Point(method: .insert, at: .afterServer, remote: .answers, id1OnServer: true,
              id1Queued: false, serverRows: ["id1"], tokenStored: false),
        // The remote throws: the pre-push stops with .cancelled and the insert stays queued.
        Point(method: .insert, at: .beforeServer, remote: .throwsCancellationError, id1OnServer: false,
              id1Queued: true, serverRows: [], tokenStored: false),
        Point(method: .insert, at: .afterServer, remote: .throwsCancellationError, id1OnServer: true,
              id1Queued: true, serverRows: [], tokenStored: false),
        // Cancelled during the first page request: nothing of the page is stored.
        Point(method: .read, at: .beforeServer, remote: .answers, id1OnServer: true,
              id1Queued: false, serverRows: ["id1"], tokenStored: false),
        Point(method: .read, at: .afterServer, remote: .answers, id1OnServer: true,
              id1Queued: false, serverRows: ["id1"], tokenStored: false),
        Point(method: .read, at: .beforeServer, remote: .throwsCancellationError, id1OnServer: true,
              id1Queued: false, serverRows: ["id1"], tokenStored: false),
        Point(method: .read, at: .afterServer, remote: .throwsCancellationError, id1OnServer: true,
              id1Queued: false, serverRows: ["id1"], tokenStored: false),
        // Cancelled during the second page request: the first page is stored with its token, nothing more.
        Point(method: .read, at: .afterServer, skipping: 1, remote: .answers, id1OnServer: true,
              id1Queued: false, serverRows: ["id1", "id2"], tokenStored: true),
        Point(method: .read, at: .afterServer, skipping: 1, remote: .throwsCancellationError, id1OnServer: true,
              id1Queued: false, serverRows: ["id1", "id2"], tokenStored: true),
        // A remote that reports the cancelled call as a network failure: the push still stops as .cancelled,
        // the pull still throws CancellationError.
        Point(method: .insert, at: .afterServer, remote: .throwsNetworkError, id1OnServer: true,
              id1Queued: true, serverRows: [], tokenStored: false),
        Point(method: .read, at: .afterServer, skipping: 1, remote: .throwsNetworkError, id1OnServer: true, id1Queued: false, serverRows: ["id1", "id2"], tokenStored: true),
    ]

    @Test(arguments: StoreKind.allCases, points)
    func cancellingAPullLeavesExactlyWhatWasFinished(_ kind: StoreKind, _ point: Point) async throws {
        let remote = InMemoryRemote(pageSize: 2)
        await remote.freezeClock(at: try #require(Timestamp.date(from: Self.instant)))
        let (fixture, suspending) = try await EngineFixture.suspended(kind, remote: remote, whenCancelled: point.remote)
        await remote.seed([["id": "id2", "text": "server"], ["id": "id3", "text": "server"]], table: "TodoItem")
        try await fixture.todo.insert(["id": "id1", "text": "local"])
        await suspending.suspendNext(point.method, at: point.at, skipping: point.skipping)
        let settings = PullSettings(pageSize: 2)
        let pull = await suspending.cancelWhileParked { try await fixture.todo.pull(queryId: "q", settings: settings) }

        // Cancelled in its pre-push or in its pages, a pull throws CancellationError.
        await #expect(throws: CancellationError.self) { try await pull.value }
        #expect((await remote.item(id: "id1", table: "TodoItem") != nil) == point.id1OnServer)
        #expect(try await fixture.operations().map { "\($0.id) \($0.kind.rawValue) \($0.itemId)" }
                == (point.id1Queued ? ["1 insert id1"] : []))
        #expect(try await fixture.context.operationErrors().isEmpty)
        var expected: [JSONObject] = []
        for id in ["id1", "id2", "id3"] {
            if point.serverRows.contains(id) {
                expected.append(try #require(await remote.item(id: id, table: "TodoItem")))
            } else if id == "id1" {
                expected.append(["id": "id1", "text": "local"])
            }
        }
        #expect(try await fixture.rows("TodoItem") == expected)
        let token = try await DeltaTokenStore.token(table: "TodoItem", queryId: "q", in: fixture.store.dataSource)
        #expect(token == (point.tokenStored ? Timestamp.milliseconds(from: Self.instant) : nil))

        // A follow-up pull (its pre-push resends a queued id1) ends with every server row stored.
        try await fixture.todo.pull(queryId: "q", settings: settings)
        #expect(try await fixture.rows("TodoItem") == (await remote.items(table: "TodoItem")))
        #expect(try await fixture.rows("TodoItem").map(\.["text"]) == ["local", "server", "server"])
        #expect(try await fixture.operations().isEmpty)
        #expect(try await DeltaTokenStore.token(table: "TodoItem", queryId: "q", in: fixture.store.dataSource)
                == Timestamp.milliseconds(from: Self.instant))
    }
}
