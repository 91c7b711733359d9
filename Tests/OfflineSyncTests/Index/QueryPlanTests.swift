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
