import Testing
import OfflineSync

struct ItemIDTests {
    static let validIDs: [String] = [
        "6F4D9E2E-4B8A-4C1E-9C77-2D4E1A6B8F00", "{6F4D9E2E-4B8A-4C1E-9C77-2D4E1A6B8F00}", "someone@someplace.com",
        "id with spaces", "...", " .", "'quotes'", String(repeating: "a", count: 255), "日本語", "عربي", "русский", "% # &",
    ]

    static let invalidIDs: [String] = [
        "", ".", "..", String(repeating: "a", count: 256), "\r", "\n", "\t", "   ", "1/8/2010 8:00:00 AM",
        "\"idWithQuotes\"", "?", "\\", "/", "`", "+", "a\u{7F}b", "a\u{85}b", "a\u{0}b",
    ]

    @Test(arguments: validIDs)
    func validIDsAreAccepted(_ id: String) {
        #expect(ItemID.isValid(id))
    }

    @Test(arguments: invalidIDs)
    func invalidIDsAreRejected(_ id: String) {
        #expect(!ItemID.isValid(id))
        #expect(ItemID.violation(in: id) != nil)
    }

    @Test(arguments: invalidIDs)
    func storesRefuseInvalidIDs(_ id: String) async throws {
        let store = InMemoryDataSource()
        await #expect(throws: DataSourceError.self) {
            try await store.apply([.upsert(table: "T", items: [["id": .string(id)]])])
        }
    }

    @Test(arguments: ["TodoItem", "a", "_x", "with-dash", "v1.items", "__operations"])
    func validTableNames(_ name: String) {
        #expect(TableName.isValid(name))
    }

    @Test(arguments: ["", ".", "..", "-x", "a b", "a/b", "tables?x", "é"])
    func invalidTableNames(_ name: String) {
        #expect(!TableName.isValid(name))
    }

    @Test func errorsSayWhatIsWrong() async throws {
        let store = InMemoryDataSource()
        do {
            try await store.apply([.upsert(table: "T", items: [["id": "a/b"]])])
            Issue.record("expected an error")
        } catch let error as DataSourceError {
            #expect(error == .invalidID(table: "T", id: "a/b", reason: "it contains the character /"))
            #expect(error.description.contains("a/b"))
        }
    }
}
