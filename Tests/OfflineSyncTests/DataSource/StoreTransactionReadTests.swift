import OfflineSync
import Testing

/// A transaction's point reads see the changes it staged before them, as the store will hold them once applied.
struct StoreTransactionReadTests {
    func store() async throws -> InMemoryDataSource {
        let store = InMemoryDataSource()
        try await store.apply([.upsert(table: "T", items: [["id": "a", "n": 1], ["id": "b", "n": 2], ["id": "c", "n": 3]])])
        return store
    }

    @Test func aReadSeesTheItemsStagedBeforeIt() async throws {
        let store = try await store()
        try await store.transaction { (transaction: inout StoreTransaction) async throws in
            transaction.stage([.upsert(table: "T", items: [["id": "a", "n": 10], ["id": "d", "n": 4]])])
            #expect(try await transaction.read(table: "T", id: "a") == ["id": "a", "n": 10])
            #expect(try await transaction.read(table: "T", id: "D") == ["id": "d", "n": 4], "ids match case-insensitively")
            #expect(try await transaction.read(table: "T", id: "b") == ["id": "b", "n": 2], "an item not staged is the store's")
            #expect(try await transaction.read(table: "U", id: "a") == nil, "another table is untouched")
            transaction.stage([.delete(table: "T", ids: ["A"])])
            #expect(try await transaction.read(table: "T", id: "a") == nil)
            transaction.stage([.upsert(table: "T", items: [["id": "a", "n": 11]])])
            #expect(try await transaction.read(table: "T", id: "a") == ["id": "a", "n": 11], "the last change wins")
        }
        #expect(try await store.read(table: "T", id: "a") == ["id": "a", "n": 11])
    }

    @Test func aReadSeesTablesEmptiedBeforeIt() async throws {
        let store = try await store()
        try await store.transaction { (transaction: inout StoreTransaction) async throws in
            transaction.stage([.upsert(table: "T", items: [["id": "e", "n": 5]]), .deleteAll(table: "T", matching: nil)])
            #expect(try await transaction.read(table: "T", id: "a") == nil)
            #expect(try await transaction.read(table: "T", id: "e") == nil, "a staged item the deleteAll removes")
            transaction.stage([.upsert(table: "T", items: [["id": "b", "n": 20]])])
            #expect(try await transaction.read(table: "T", id: "b") == ["id": "b", "n": 20])
        }
    }

    @Test func aFilteredDeleteAllRemovesOnlyWhatItMatches() async throws {
        let store = try await store()
        try await store.transaction { (transaction: inout StoreTransaction) async throws in
            transaction.stage([.upsert(table: "T", items: [["id": "b", "n": 7]])])
            transaction.stage([.deleteAll(table: "T", matching: Field("n") > 2)])
            #expect(try await transaction.read(table: "T", id: "a") == ["id": "a", "n": 1], "the store's item does not match")
            #expect(try await transaction.read(table: "T", id: "b") == nil, "the staged item matches")
            #expect(try await transaction.read(table: "T", id: "c") == nil, "the store's item matches")
            transaction.stage([.upsert(table: "T", items: [["id": "a", "n": 9]]), .deleteAll(table: "T", matching: Field("n") == 100)])
            #expect(try await transaction.read(table: "T", id: "a") == ["id": "a", "n": 9], "found beneath the second deleteAll")
        }
        let left = try await store.read(Query(table: "T")).items.compactMap { $0["id"]?.stringValue }
        #expect(Set(left) == ["a"])
    }

    @Test func aReadFindsItemsInLargeChangesToo() async throws {
        let store = try await store()
        let page: [JSONObject] = (0..<20).map { ["id": .string("p\($0)"), "n": .int(Int64($0))] }
        try await store.transaction { (transaction: inout StoreTransaction) async throws in
            transaction.stage([.upsert(table: "T", items: [["id": "p3", "n": -1]]), .upsert(table: "T", items: page)])
            #expect(try await transaction.read(table: "T", id: "P3") == ["id": "p3", "n": 3], "the large change comes last")
            transaction.stage([.upsert(table: "T", items: [["id": "p3", "n": 30]])])
            #expect(try await transaction.read(table: "T", id: "p3") == ["id": "p3", "n": 30])
            transaction.stage([.delete(table: "T", ids: (0..<10).map { "P\($0)" })])
            #expect(try await transaction.read(table: "T", id: "p3") == nil)
            #expect(try await transaction.read(table: "T", id: "p12") == ["id": "p12", "n": 12])
            #expect(try await transaction.read(table: "T", id: "a") == ["id": "a", "n": 1])
        }
    }
}
