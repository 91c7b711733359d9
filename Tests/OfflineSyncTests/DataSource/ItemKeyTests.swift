import Testing
import OfflineSync
import OfflineSyncTesting

/// Ids match case-insensitively and in nothing else: ids that differ only in Unicode normalization are two items.
struct ItemKeyTests {
    static let composed = "caf\u{E9}"          // é as one scalar
    static let decomposed = "cafe\u{301}"      // e + combining acute accent

    @Test func keysCompareByBytesAfterLowerCasing() {
        #expect(ItemKey(id: "ABC") == ItemKey(id: "abc"))
        #expect(ItemKey(id: "CAF\u{C9}") == ItemKey(id: Self.composed))
        #expect(ItemKey(id: Self.composed) != ItemKey(id: Self.decomposed))
        #expect(Set([ItemKey(id: Self.composed), ItemKey(id: Self.decomposed), ItemKey(id: "CAFE\u{301}")]).count == 2)
    }

    @Test func storesKeepCanonicallyEquivalentIdsApart() async throws {
        let store = InMemoryDataSource()
        try await store.apply([.upsert(table: "T", items: [["id": .string(Self.composed), "v": 1],
                                                          ["id": .string(Self.decomposed), "v": 2]])])
        #expect(try await store.read(Query(table: "T")).items.count == 2)
        #expect(try await store.read(table: "T", id: Self.composed)?["v"] == 1)
        #expect(try await store.read(table: "T", id: "CAFE\u{301}")?["v"] == 2)
        try await store.apply([.delete(table: "T", ids: [Self.decomposed])])
        #expect(try await store.read(Query(table: "T")).items.map { $0["v"] } == [1])
    }

    @Test func theQueueKeepsCanonicallyEquivalentIdsApart() async throws {
        let context = SyncContext(dataSource: InMemoryDataSource(), remote: InMemoryRemote())
        let table = context.table("T")
        try await table.insert(["id": .string(Self.composed)])
        try await table.insert(["id": .string(Self.decomposed)])
        #expect(try await context.pendingOperations().map(\.kind) == [.insert, .insert])
        try await table.update(["id": .string(Self.decomposed), "v": 2])
        let operations = try await context.pendingOperations()
        #expect(operations.map(\.kind) == [.insert, .insert], "the update collapsed into its own item's insert")
        #expect(operations.last?.item?["v"] == 2)
    }
}
