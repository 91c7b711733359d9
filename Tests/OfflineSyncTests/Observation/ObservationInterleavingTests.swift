import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// An observer's evaluation and a commit in a fixed order, step by step: the read of the evaluation, the commit, and
/// the commit's mark of the observer. The randomised counterpart is `ObserveTests`' thousand rapid writes.
struct ObservationInterleavingTests {
    /// A store that parks the next read of a `TodoItem` query, before or after it reads, until `resume()`.
    actor ParkingStore: SyncContextDataSource {
        enum Point: Sendable { case beforeReading, afterReading }

        let base = InMemoryDataSource()
        private var armed: Point?
        private var parked: CheckedContinuation<Void, Never>?
        private var parkedWaiter: CheckedContinuation<Void, Never>?

        /// Parks the next read of a `TodoItem` query at `point`.
        func arm(_ point: Point) { armed = point }

        /// Returns once an armed read is parked.
        func waitUntilParked() async {
            guard parked == nil else { return }
            await withCheckedContinuation { parkedWaiter = $0 }
        }

        /// Lets the parked read go on.
        func resume() {
            parked?.resume()
            parked = nil
        }

        func read(table: String, id: String) async throws -> JSONObject? { try await base.read(table: table, id: id) }

        func read(_ query: Query) async throws -> QueryResult {
            guard query.table == "TodoItem", let point = armed else { return try await base.read(query) }
            armed = nil
            if point == .beforeReading { await park() }
            let result = try await base.read(query)
            if point == .afterReading { await park() }
            return result
        }

        func apply(_ changes: [StoreChange]) async throws { try await base.apply(changes) }

        private func park() async {
            await withCheckedContinuation { continuation in
                parked = continuation
                parkedWaiter?.resume()
                parkedWaiter = nil
            }
        }
    }

    static let all = Query(table: "TodoItem", orderBy: [.ascending("id")])

    private static func ids(_ result: QueryResult) -> [String] {
        result.items.compactMap { $0["id"]?.stringValue }
    }

    /// A context on a parking store, observing `all`, once the first (empty) result has arrived.
    private static func observing() async throws -> (SyncContext, ParkingStore, ObservedElements<QueryResult>) {
        let store = ParkingStore()
        let context = SyncContext(dataSource: store, remote: InMemoryRemote())
        let observed = ObservedElements(context.table("TodoItem").observe(all))
        #expect(await observed.waitUntil { $0.count == 1 })
        return (context, store, observed)
    }

    /// Whether the context's one observer is marked dirty while it evaluates.
    private static func markedWhileEvaluating(_ context: SyncContext) async -> Bool {
        let observers = await context.queryObservers.values
        return observers.count == 1 && observers.allSatisfy { $0.isDirty && $0.isEvaluating }
    }

    @Test func aCommitBetweenAnEvaluationsReadAndItsResultIsReadAgainAndDelivered() async throws {
        let (context, store, observed) = try await Self.observing()
        await store.arm(.afterReading)
        try await context.table("TodoItem").insert(["id": "a"])     // commit, mark: an evaluation starts
        await store.waitUntilParked()                                // read: it has read [a], and is held
        try await context.table("TodoItem").insert(["id": "b"])     // commit, mark: during the evaluation
        #expect(await Self.markedWhileEvaluating(context))
        await store.arm(.beforeReading)                              // hold its next read until [a] is consumed
        await store.resume()                                         // the evaluation delivers [a], then reads again
        #expect(await observed.waitUntil { $0.count == 2 })
        await store.waitUntilParked()
        await store.resume()
        #expect(await observed.waitUntil { $0.count == 3 })
        #expect(await observed.elements.map(Self.ids) == [[], ["a"], ["a", "b"]])
        #expect(await eventually { await context.queryObservers.values.allSatisfy { !$0.isDirty && !$0.isEvaluating } })
    }

    @Test func aCommitBeforeAnEvaluationsReadIsSeenByThatRead() async throws {
        let (context, store, observed) = try await Self.observing()
        await store.arm(.beforeReading)
        try await context.table("TodoItem").insert(["id": "a"])     // commit, mark: an evaluation starts
        await store.waitUntilParked()                                // its read is held before it reads
        try await context.table("TodoItem").insert(["id": "b"])     // commit, mark: during the evaluation
        #expect(await Self.markedWhileEvaluating(context))
        await store.resume()                                         // reads [a, b]; reads again, the same
        #expect(await observed.waitUntil { $0.count == 2 })
        #expect(await observed.elements.map(Self.ids) == [[], ["a", "b"]], "no result without b was read")
        #expect(await eventually { await context.queryObservers.values.allSatisfy { !$0.isDirty && !$0.isEvaluating } })
    }
}
