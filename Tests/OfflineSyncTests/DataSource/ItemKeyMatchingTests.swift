import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Ids are compared by their keys without building them (``ItemID/haveSameKey(_:_:)``, ``ItemID/hasKey(_:_:)``,
/// ``ItemTable/find(id:)``), which must agree with comparing ``ItemID/key(_:)`` for every id.
struct ItemKeyMatchingTests {
    static let ids = [
        "a", "A", "ab", "aB", "Ab", "abc", "item-1", "ITEM-1", "item_1", "Item 1", "[x]", "{x}", "@x", "`x", "~",
        "E7A52DDE-5733-424B-B14A-C47F5EE35E69", "e7a52dde-5733-424b-b14a-c47f5ee35e69", "é", "É", "e\u{301}",
        "\u{212A}", "k", "K", "straße", "STRASSE", "ǅ", "ǆ", "Ǆ", "😀", "ß", "\u{7F}x", String(repeating: "Z", count: 255),
        String(repeating: "z", count: 255),
    ]

    @Test func idsMatchExactlyWhenTheirKeysAreEqual() {
        for first in Self.ids {
            for second in Self.ids {
                let expected = ItemID.key(first) == ItemID.key(second)
                #expect(ItemID.haveSameKey(first, second) == expected, "\(first) / \(second)")
                #expect(ItemID.hasKey(first, ItemID.key(second)) == expected, "\(first) / \(second)")
            }
        }
    }

    @Test func aPointReadFindsAnItemByAnyIdWithItsKey() {
        var table = ItemTable()
        let stored = Self.ids.filter { id in ItemID.isValid(id) && !Self.ids.contains { ItemID.key($0) == ItemID.key(id) && $0 < id } }
        for id in stored { table.upsert(["id": .string(id), "n": 1], key: ItemID.key(id)) }
        for id in Self.ids where ItemID.isValid(id) {
            let owner = stored.first { ItemID.key($0) == ItemID.key(id) }
            #expect(table.find(id: id)?["id"]?.stringValue == owner, "\(id)")
        }
        #expect(table.find(id: "absent") == nil)
    }

    @Test func itemsOfAnotherShapeThanTheFirstAreReadWhole() {
        var table = ItemTable()
        table.upsert(["id": "a", "n": 1, "t": "x"], key: "a")
        table.upsert(["id": "B", "other": [1, 2], "t": "y", "n": 2.5], key: "b")
        table.upsert(["id": "c", "n": 3], key: "c")
        #expect(table.find(id: "A") == ["id": "a", "n": 1, "t": "x"])
        #expect(table.find(id: "b") == ["id": "B", "other": [1, 2], "t": "y", "n": 2.5])
        #expect(table.find(id: "C") == ["id": "c", "n": 3])
    }
}
