import Testing
@testable import OfflineSync

/// Opening a store loads the snapshot's items with keys computed while parsing (`TableSet.load`); the tables must
/// come out exactly as `apply` of the same upserts makes them.
struct TableSetBulkLoadTests {
    static let items: [JSONObject] = [
        ["id": "abc", "n": 1],
        ["id": "ABC", "n": 2],                     // same key as "abc": the later one wins, with its casing
        ["id": "Ünïcode-ÉTÉ", "n": 3],
        ["id": "ünïcode-été", "n": 4],             // non-ASCII ids match case-insensitively too
        ["id": "BDD73226-2FEB-4E95-A8EF-E333B266F103", "n": 5],
        ["id": 7, "n": 6],                         // no string id: skipped by both
        ["n": 7],
    ]

    @Test func bulkLoadEqualsApplyingTheSameUpserts() {
        var applied = TableSet()
        applied.apply([.upsert(table: "T", items: [["id": "old", "n": 0], ["id": "abc", "n": -1]])])
        var loaded = applied
        applied.apply([.upsert(table: "T", items: Self.items)])
        loaded.load(table: "T", items: Self.items.map(KeyedItem.init))
        #expect(loaded.count(table: "T") == applied.count(table: "T"))
        #expect(loaded.count(table: "T") == 4)
        for id in ["old", "abc", "ABC", "ünïcode-été", "ÜNÏCODE-ÉTÉ", "bdd73226-2feb-4e95-a8ef-e333b266f103", "missing"] {
            #expect(loaded.item(table: "T", id: id) == applied.item(table: "T", id: id), "id \(id)")
        }
        #expect(loaded.item(table: "T", id: "abc")?["id"] == "ABC")
        #expect(loaded.item(table: "T", id: "ünïcode-été")?["n"] == 4)
    }

    @Test func bulkLoadOfAnEmptyTableLeavesNoTable() {
        var tables = TableSet()
        tables.load(table: "T", items: [])
        #expect(tables.tableNames.isEmpty)
    }

    @Test(arguments: [
        ("abc-123", "abc-123"), ("ABC-123", "abc-123"), ("MiXeD", "mixed"), ("", ""),
    ])
    func asciiItemKeyIsTheLowerCasedID(id: String, key: String) {
        #expect(ItemID.key(id) == key)
        #expect(ItemID.key(id) == id.lowercased())
    }

    @Test(arguments: [("ÉTÉ", "été"), ("Straße", "straße"), ("ÅNGSTRÖM", "ångström")])
    func nonASCIIItemKeysMatchAcrossCase(_ upper: String, _ lower: String) {
        #expect(ItemID.key(upper) == ItemID.key(lower))
        #expect(ItemID.key(upper).utf8.allSatisfy { $0 < 0x80 }, "non-ASCII keys are escaped to ASCII")
    }
}
