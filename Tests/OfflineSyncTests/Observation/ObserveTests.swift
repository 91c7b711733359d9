import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// `SyncTable.observe` and `TypedSyncTable.observe`: the emission rules and every kind of committed change.
struct ObserveTests {
    static let open = Query(table: "TodoItem", filter: Field("done") == false, orderBy: [.ascending("id")])

    private func ids(_ result: QueryResult) -> [String] {
        result.items.compactMap { $0["id"]?.stringValue }
    }

    @Test(arguments: StoreKind.allCases)
    func theFirstElementIsTheCurrentResultAndEachAlteringWriteAddsOne(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.todo.insert(["id": "a", "done": false])
        let observed = ObservedElements(fixture.todo.observe(Self.open))
        #expect(await observed.waitUntil { $0.count == 1 })
        #expect(await observed.elements.map(ids) == [["a"]])

        try await fixture.todo.insert(["id": "b", "done": false])
        #expect(await observed.waitUntil { $0.last.map(ids) == ["a", "b"] })
        // A change that leaves the result as it is adds nothing; the next altering one does.
        try await fixture.todo.insert(["id": "c", "done": true])
        try await fixture.todo.update(["id": "a", "done": false])
        try await fixture.todo.delete(["id": "b"])
        #expect(await observed.waitUntil { $0.last.map(ids) == ["a"] })
        #expect(await observed.elements.map(ids) == [["a"], ["a", "b"], ["a"]])
    }

    @Test func anElementArrivesOnlyOnceItsWriteIsInTheStore() async throws {
        let fixture = try await EngineFixture(.inMemory)
        let observed = ObservedElements(fixture.todo.observe(Self.open))
        #expect(await observed.waitUntil { $0.count == 1 })
        try await fixture.todo.insert(["id": "a", "done": false])
        #expect(await observed.waitUntil { $0.count == 2 })
        for element in await observed.elements {
            for id in ids(element) { #expect(try await fixture.store.dataSource.read(table: "TodoItem", id: id) != nil) }
        }
    }

    @Test func aConsumerThatDoesNotReadDuringABurstFindsTheNewestResultAndNeverAnOlderOneAfterIt() async throws {
        let fixture = try await EngineFixture(.inMemory)
        var results = fixture.todo.observe(Self.open).makeAsyncIterator()
        #expect(try await results.next()?.items.count == 0)
        for index in 0..<200 { try await fixture.todo.insert(["id": .string("i\(1000 + index)"), "done": false]) }
        // The stream keeps only the newest result; at most an evaluation that started before the last write and the
        // one that follows it can come after it.
        var counts: [Int] = []
        while counts.last != 200, counts.count < 4, let result = try await results.next() { counts.append(result.items.count) }
        #expect(counts.last == 200 && counts.count <= 3, "\(counts)")
        #expect(counts == counts.sorted() && Set(counts).count == counts.count, "\(counts)")
    }

    @Test(arguments: StoreKind.allCases)
    func everyKindOfCommittedChangeIsSeen(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let observed = ObservedElements(fixture.todo.observe(Query(table: "TodoItem", orderBy: [.ascending("id")])))
        #expect(await observed.waitUntil { $0.count == 1 })
        func sees(_ description: String, _ condition: @escaping @Sendable ([JSONObject]) -> Bool) async {
            #expect(await observed.waitUntil { $0.last.map { condition($0.items) } ?? false }, "\(description)")
        }

        try await fixture.context.write { batch in
            try batch.insert(["id": "a", "text": "batch"], into: "TodoItem")
            try batch.insert(["id": "b", "text": "batch"], into: "TodoItem")
        }
        await sees("a batch") { $0.count == 2 }
        try await fixture.context.push()
        await sees("push bookkeeping (the server's copies)") { $0.allSatisfy { $0["version"] != nil } }
        await fixture.remote.seed([["id": "c", "text": "pulled"]], table: "TodoItem")
        try await fixture.todo.pull()
        await sees("a pulled page") { $0.count == 3 }
        try await fixture.todo.purge(Query(table: "TodoItem", filter: Field("id") == "c"))
        await sees("a purge") { $0.count == 2 }
        try await fixture.todo.update(["id": "a", "text": "local", "version": "stale"])
        await #expect(throws: PushError.self) { try await fixture.context.push() }
        let error = try #require(try await fixture.context.operationErrors().first)
        try await fixture.context.cancelAndUpdate(error, with: try #require(error.serverItem))
        await sees("a resolution") { $0.first?["text"] == "batch" }
    }

    @Test func typedObservationDecodesEachResult() async throws {
        struct Todo: Codable, Sendable { var id: String?; var text: String }
        let fixture = try await EngineFixture(.inMemory)
        let todos = fixture.context.table(Todo.self, name: "TodoItem")
        let observed = ObservedElements(todos.observe(Query(table: "TodoItem", orderBy: [.ascending("text")])))
        try await todos.insert(Todo(id: "1", text: "milk"))
        try await todos.insert(Todo(id: "2", text: "bread"))
        #expect(await observed.waitUntil { $0.last?.map(\.text) == ["bread", "milk"] })
    }

    @Test func aQueryOfAnotherTableEndsTheStreamWithAnError() async throws {
        let fixture = try await EngineFixture(.inMemory)
        let observed = ObservedElements(fixture.todo.observe(Query(table: "Other")))
        #expect(await !observed.waitUntil(seconds: 1) { !$0.isEmpty })
        #expect(await observed.failure as? SyncError == .queryTableMismatch(table: "TodoItem", queryTable: "Other"))
    }

    @Test func cancellingTheIterationReleasesTheObserver() async throws {
        let fixture = try await EngineFixture(.inMemory)
        let observed = ObservedElements(fixture.todo.observe(Self.open))
        #expect(await observed.waitUntil { $0.count == 1 })
        #expect(await fixture.context.observerCount == 1)
        await observed.cancel()
        #expect(await eventually { await fixture.context.observerCount == 0 })
        try await fixture.todo.insert(["id": "a", "done": false])
    }

    @Test(arguments: StoreKind.allCases)
    func tenObserversOfAThousandRapidWritesEndAtTheFinalState(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        let queries = (0..<10).map { index in
            Query(table: "TodoItem", filter: Field("group") == .int(Int64(index % 3)), orderBy: [.descending("n")], top: 50)
        }
        let observers = queries.map { ObservedElements(fixture.todo.observe($0)) }
        for index in 0..<1000 {
            try await fixture.todo.insert(["id": .string("w\(index)"), "group": .int(Int64(index % 3)), "n": .int(Int64(index))])
        }
        // Ten observers re-reading after each of a thousand commits keep a loaded two-core machine busy for
        // minutes: each may wait two of them without a new result before it counts as stuck.
        for (query, observed) in zip(queries, observers) {
            let final = try await fixture.todo.read(query)
            let reached = await observed.waitUntil(seconds: 120) { $0.last == final }
            let (elements, failure) = (await observed.elements, await observed.failure)
            let fresh = try await fixture.todo.read(query)
            let states = await fixture.context.queryObservers.values.filter { $0.query == query }
                .map { "dirty \($0.isDirty), evaluating \($0.isEvaluating), last has \($0.last.map(ids) ?? [])" }
            #expect(reached, """
                \(elements.count) results, the last with ids \(elements.last.map(ids) ?? []); the final has \(ids(final)); \
                the stream \(failure.map { "failed: \($0)" } ?? "goes on"); a fresh read gives \(ids(fresh)); the context's observers of it: \(states)
                """)
        }
    }
}
