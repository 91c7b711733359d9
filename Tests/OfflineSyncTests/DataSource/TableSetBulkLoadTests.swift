import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Opening a store loads the snapshot's items packed, with keys computed while parsing (`TableSet.load`); the
/// tables and their indexes must come out exactly as `apply` of the same upserts makes them.
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

    /// `items` packed for `table` of `tables` as the snapshot reader packs them (the table learns its shape from the
    /// first item's text when it has none), leaving out the items without a string id as the reader does.
    static func packed(_ items: [JSONObject], table: String, in tables: inout TableSet, indexFields: [[String]] = []) -> [LoadedItem] {
        if let first = items.first {
            JSONValue.object(first).jsonBytes().withUnsafeBytes { tables.adoptShape(table: table, learnedFrom: $0) }
        }
        let shape = tables.shape(table: table)
        return items.compactMap { item in
            guard let key = ItemTable.key(of: item) else { return nil }
            var packed: [UInt8] = []
            let text = JSONValue.object(item).jsonBytes()
            _ = text.withUnsafeBufferPointer { PackedObject.append(json: $0, shape: shape, to: &packed) }
            return LoadedItem(packed: packed, key: key, indexValues: TableSet.indexValues(of: item, indexFields))
        }
    }

    @Test func bulkLoadEqualsApplyingTheSameUpserts() {
        var applied = TableSet()
        applied.apply([.upsert(table: "T", items: Self.items)])
        var loaded = TableSet()
        let items = Self.packed(Self.items, table: "T", in: &loaded)
        let replaced = loaded.load(items, table: "T")
        loaded.finishLoading(table: "T", replacedAny: replaced)
        #expect(replaced, "two ids share a key")
        #expect(loaded.count(table: "T") == applied.count(table: "T"))
        #expect(loaded.count(table: "T") == 3)
        for id in ["abc", "ABC", "ünïcode-été", "ÜNÏCODE-ÉTÉ", "bdd73226-2feb-4e95-a8ef-e333b266f103", "missing"] {
            #expect(loaded.item(table: "T", id: id) == applied.item(table: "T", id: id), "id \(id)")
        }
        #expect(loaded.item(table: "T", id: "abc")?["id"] == "ABC")
        #expect(loaded.item(table: "T", id: "ünïcode-été")?["n"] == 4)
    }

    @Test func bulkLoadIntoATableThatHoldsItemsKeepsThemAndAppliesTheLoadedOnesOnTop() {
        var applied = TableSet()
        applied.apply([.upsert(table: "T", items: [["id": "old", "n": 0], ["id": "abc", "n": -1]])])
        var loaded = applied
        applied.apply([.upsert(table: "T", items: Self.items)])
        let items = Self.packed(Self.items, table: "T", in: &loaded)
        loaded.finishLoading(table: "T", replacedAny: loaded.load(items, table: "T"))
        #expect(loaded.count(table: "T") == 4)
        for id in ["old", "abc", "ünïcode-été", "bdd73226-2feb-4e95-a8ef-e333b266f103"] {
            #expect(loaded.item(table: "T", id: id) == applied.item(table: "T", id: id), "id \(id)")
        }
    }

    @Test func bulkLoadBuildsTheIndexesAsApplyDoes() throws {
        let index = IndexDefinition(table: "T", fields: ["n"])
        var applied = TableSet(), loaded = TableSet()
        try applied.defineIndexes([index])
        try loaded.defineIndexes([index])
        applied.apply([.upsert(table: "T", items: Self.items)])
        let items = Self.packed(Self.items, table: "T", in: &loaded, indexFields: [["n"]])
        loaded.finishLoading(table: "T", replacedAny: loaded.load(items, table: "T"))
        for query in [Query(table: "T", orderBy: [.descending("n")]), Query(table: "T", filter: Field("n") > 2, orderBy: [.ascending("n")])] {
            #expect(try loaded.explain(query).index == index)
            #expect(try loaded.read(query) == applied.read(query))
        }
        #expect(try loaded.read(Query(table: "T", orderBy: [.ascending("n")])).items.map { $0["n"] } == [2, 4, 5])
    }

    @Test func bulkLoadOfAnEmptyTableLeavesNoTable() {
        var tables = TableSet()
        tables.finishLoading(table: "T", replacedAny: tables.load([], table: "T"))
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
