import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// The compact item storage must behave as a dictionary from key to item under any sequence of upserts and
/// removals, including the reclaiming of garbage and items loaded packed from a snapshot.
struct ItemTableTests {
    @Test func randomUpsertsAndRemovalsMatchADictionary() {
        var random = SeededRandom(seed: 21)
        var table = ItemTable()
        var model: [String: JSONObject] = [:]
        for step in 0..<30_000 {
            let key = "k\(random.below(2_000))"
            // Half the changes decode what they replace (as for an indexed table); the others match the key alone.
            let decoding = random.below(2) == 0
            if random.below(3) == 0 {
                let removed = table.remove(key: key, decoding: decoding)
                let expected = model.removeValue(forKey: key)
                #expect((removed != nil) == (expected != nil), "step \(step)")
                #expect(removed?.item == (decoding ? expected : nil), "step \(step)")
            } else {
                // Large items now and then make the arena's garbage pass its reclaim threshold.
                let item: JSONObject = ["id": .string(key), "n": .int(Int64(step)),
                                        "pad": .string(String(repeating: "x", count: random.below(8) == 0 ? 4_000 : 10))]
                let upserted = table.upsert(item, key: key, decodingPrevious: decoding)
                let expected = model.updateValue(item, forKey: key)
                #expect(upserted.replaced == (expected != nil), "step \(step)")
                #expect(upserted.previous == (decoding ? expected : nil), "step \(step)")
            }
            #expect(table.count == model.count)
        }
        for (key, item) in model { #expect(table.find(key: key)?.item == item) }
        #expect(table.find(key: "absent") == nil)
        #expect(Set(table.items.compactMap { $0["id"]?.stringValue }) == Set(model.keys))
    }

    @Test func upsertsByIdFindTheItemOfTheSameKeyAsUpsertsByKeyDo() {
        var random = SeededRandom(seed: 28)
        var table = ItemTable()
        var model: [String: JSONObject] = [:]
        for step in 0..<20_000 {
            // Ids differing only in case share a key; a non-ASCII id takes the path that builds the key.
            let number = random.below(1_500)
            let id = random.below(2) == 0 ? "Item-\(number)" : (number % 50 == 0 ? "ítem-\(number)" : "ITEM-\(number)")
            let key = ItemID.key(id)
            let decoding = random.below(2) == 0
            if random.below(4) == 0 {
                let removed = table.remove(key: key, decoding: decoding)
                #expect((removed != nil) == (model.removeValue(forKey: key) != nil), "step \(step)")
            } else {
                let item: JSONObject = ["id": .string(id), "n": .int(Int64(step))]
                let upserted = table.upsert(item, id: id, decodingPrevious: decoding, copyingPrevious: true)
                let expected = model.updateValue(item, forKey: key)
                #expect(upserted.replaced == (expected != nil), "step \(step)")
                #expect(upserted.previous == (decoding ? expected : nil), "step \(step)")
                #expect(upserted.previousCopy?.item == expected, "step \(step)")
            }
            #expect(table.count == model.count)
        }
        for (key, item) in model { #expect(table.find(key: key)?.item == item) }
    }

    @Test func itemsLoadedPackedCanBeReplacedAndRemovedAndItemsOfOtherKeysKeepTheirs() throws {
        var table = ItemTable()
        let shape = JSONObjectShape(keys: ["id", "text", "at"])
        table.adopt(shape: shape)
        for index in 0..<3_000 {
            let item: JSONObject = ["id": .string("B\(index)"), "text": .string(String(repeating: "t", count: 400)),
                                    "at": "2026-11-29T09:29:49.062Z"]
            var packed: [UInt8] = []
            PackedObject.append(item, shape: shape, to: &packed)
            #expect(packed.first == PackedObject.shaped)
            let loaded = LoadedItem(packed: packed, key: "b\(index)", indexValues: [])
            loaded.withKeyAndPacked { key, packed in _ = table.load(packed: packed, key: key, hash: loaded.hash, held: nil) }
        }
        #expect(table.count == 3_000)
        #expect(table.find(key: "b7")?.item == ["id": "B7", "text": .string(String(repeating: "t", count: 400)), "at": "2026-11-29T09:29:49.062Z"])
        // Two thirds replaced by items of other keys (kept as text), so the garbage is reclaimed.
        for index in 0..<3_000 where index % 3 != 0 { table.upsert(["id": .string("B\(index)"), "n": 1], key: "b\(index)") }
        #expect(table.shape === shape, "the shape items were packed with stays")
        #expect(table.find(key: "b3")?.item["text"]?.stringValue?.count == 400)
        #expect(table.find(key: "b4")?.item == ["id": "B4", "n": 1])
        let text = table.withText(of: 0) { text in
            [UInt8](unsafeUninitializedCapacity: text?.lengthBound ?? 0) { output, count in count = text?.write(to: output) ?? 0 }
        }
        #expect(try JSONValue(parsing: text) == .object(table.decode(0) ?? [:]))
        for index in 0..<3_000 { table.remove(key: "b\(index)") }
        #expect(table.isEmpty)
        #expect(Array(table.decodedItems).isEmpty)
    }

    @Test func keysThatDifferOnlyInCaseShareAnItemThroughTheTableSet() {
        var tables = TableSet()
        tables.apply([.upsert(table: "T", items: [["id": "Abc", "n": 1]])])
        tables.apply([.upsert(table: "T", items: [["id": "aBC", "n": 2]])])
        #expect(tables.count(table: "T") == 1)
        #expect(tables.item(table: "T", id: "ABC") == ["id": "aBC", "n": 2])
        tables.apply([.delete(table: "T", ids: ["abc"])])
        #expect(tables.count(table: "T") == 0)
    }
}
