import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Ids match case-insensitively and in nothing else: ids that differ only in Unicode normalization are two items.
struct ItemKeyTests {
    static let composed = "caf\u{E9}"          // é as one scalar
    static let decomposed = "cafe\u{301}"      // e + combining acute accent

    @Test func keysFoldCaseAndNothingElse() {
        #expect(ItemID.key("ABC") == "abc")
        #expect(ItemID.key("CAF\u{C9}") == ItemID.key(Self.composed))
        #expect(ItemID.key(Self.composed).utf8.elementsEqual(ItemID.key(Self.decomposed).utf8) == false)
        #expect(Set([ItemID.key(Self.composed), ItemID.key(Self.decomposed), ItemID.key("CAFE\u{301}")]).count == 2)
    }

    @Test func asciiKeysAreTheIdsLowerCasedAsTheStandardLibraryDoes() {
        let printable = String(decoding: Array(0x20..<0x7F) as [UInt8], as: UTF8.self)
        #expect(ItemID.key(printable) == printable.lowercased())
        #expect(ItemID.key("@AZ[`az{") == "@az[`az{")
        let lower = "already-lower_case.id"
        #expect(ItemID.key(lower) == lower)
    }

    @Test(arguments: [("caf\u{E9}", "caf\u{1}c3\u{1}a9"), ("ÅB", "\u{1}c3\u{1}a5b"), ("a\u{1}b", "a\u{1}01b"), ("x y", "x y")])
    func nonASCIIKeysAreEscapedOneToOne(_ id: String, _ key: String) {
        #expect(ItemID.key(id).utf8.elementsEqual(key.utf8))
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
