import Testing
import OfflineSync

struct QueryPlanTests {
    static let index = IndexDefinition(table: "TodoItem", fields: ["complete", "updatedAt"])
    static let w5 = Query(table: "TodoItem", filter: Field("complete") == false, orderBy: [.descending("updatedAt")], top: 50)

    @Test func explainNamesTheIndexForTheW5Query() async throws {
        let store = InMemoryDataSource(indexes: [Self.index])
        let plan = try await store.explain(Self.w5)
        #expect(plan.access == .index(Self.index, equalityFields: ["complete"]))
    }

    @Test func explainReportsAScanForAnUnindexedField() async throws {
        let store = InMemoryDataSource(indexes: [Self.index])
        let plan = try await store.explain(Query(table: "TodoItem", filter: Field("text") == "milk"))
        #expect(plan.access == .scan)
        #expect(plan.index == nil)
    }

    @Test func aRangeOnTheFieldAfterTheEqualitiesNarrowsTheWalk() async throws {
        let index = IndexDefinition(table: "TodoItem", fields: ["complete", "priority"])
        let store = InMemoryDataSource(indexes: [index])
        let items = (0..<40).map { number -> JSONObject in
            let priority: JSONValue = number % 5 == 0 ? "high" : .int(Int64(number % 10))
            return ["id": .string("i\(number)"), "complete": .bool(number % 2 == 0), "priority": priority]
        }
        try await store.apply([.upsert(table: "TodoItem", items: items)])
        let query = Query(table: "TodoItem", filter: Field("complete") == true && Field("priority") > 2 && Field("priority") <= 6,
                          orderBy: [.ascending("priority")])
        let plan = try await store.explain(query)
        #expect(plan.access == .index(index, equalityFields: ["complete"]))
        #expect(plan.reason.contains("range on priority"))
        #expect(try await store.read(query).items.map { $0["priority"] } == [4, 4, 4, 4, 6, 6, 6, 6])
    }

    @Test func aRangeOnATimestampFieldIsNarrowedToWholeDaysAndStillAnsweredCorrectly() async throws {
        let index = IndexDefinition(table: "TodoItem", fields: ["updatedAt"])
        let store = InMemoryDataSource(indexes: [index])
        // The same instant written two ways: byte order and instant order differ.
        try await store.apply([.upsert(table: "TodoItem", items: [
            ["id": "a", "updatedAt": "2026-01-01T00:00:00Z"], ["id": "b", "updatedAt": "2026-01-01T00:00:00.500Z"],
        ])])
        let query = Query(table: "TodoItem", filter: Field("updatedAt") > "2026-01-01T00:00:00.100Z")
        let plan = try await store.explain(query)
        #expect(plan.index == index)
        #expect(plan.reason.contains("range on updatedAt (instants: narrowed to whole days)"), "\(plan)")
        #expect(plan.reason.contains("updatedAt tested on each entry's values before its item is read; the index entries and their values decide every match"), "\(plan)")
        #expect(try await store.read(query).items.map { $0["id"] } == ["b"])
    }

    @Test func journalStoreExplainsWithItsIndexesAfterReopen() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = JournalOptions()
        options.indexes = [Self.index]
        let first = try await JournalDataSource(directory: directory.url)
        try await first.apply([.upsert(table: "TodoItem", items: [["id": "1", "complete": false, "updatedAt": "2026-01-01T00:00:00.000Z"]])])
        try await first.close()
        let store = try await JournalDataSource(directory: directory.url, options: options)
        defer { Task { try? await store.close() } }
        #expect(try await store.explain(Self.w5).index == Self.index)
        #expect(try await store.read(Self.w5).items.count == 1)
        #expect(try await store.explain(Query(table: "TodoItem", orderBy: [.ascending("text")])).access == .scan)
    }

    @Test func anIndexWithoutFieldsIsRejectedAtOpen() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = JournalOptions()
        options.indexes = [IndexDefinition(table: "TodoItem", fields: [])]
        await #expect(throws: JournalError.self) { try await JournalDataSource(directory: directory.url, options: options) }
        #expect(throws: DataSourceError.self) { try IndexDefinition(table: "bad name", fields: ["a"]).validate() }
    }
}
