import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// An operation kept from its mark must be dropped by any change to its row or its item, and only by those.
struct MarkedAheadTests {
    private static func marked() -> MarkedAhead {
        var ahead = MarkedAhead()
        ahead.remember(TableOperation(id: 1, kind: .insert, table: "T", itemId: "Item-A", item: nil), item: ["id": "Item-A"])
        ahead.remember(TableOperation(id: 2, kind: .update, table: "T", itemId: "b", item: nil), item: ["id": "b"])
        ahead.remember(TableOperation(id: 3, kind: .insert, table: "U", itemId: "c", item: nil), item: ["id": "c"])
        return ahead
    }

    private static func kept(_ ahead: MarkedAhead) -> [Int64] {
        var ahead = ahead
        return [1, 2, 3].filter { ahead.take($0) != nil }
    }

    @Test func aChangeToTheItemDropsItsOperationWhateverTheIdsCase() {
        var ahead = Self.marked()
        ahead.forget(touchedBy: [.upsert(table: "T", items: [["id": "item-a"]]), .delete(table: "U", ids: ["other"])])
        #expect(Self.kept(ahead) == [2, 3])
    }

    @Test func aChangeToTheOperationRowDropsIt() {
        var ahead = Self.marked()
        ahead.forget(touchedBy: [.delete(table: EngineTables.operations, ids: [EngineTables.rowID(forOperation: 3)])])
        #expect(Self.kept(ahead) == [1, 2])
    }

    @Test func savingTheOperationRowDropsIt() {
        var ahead = Self.marked()
        ahead.forget(touchedBy: [.upsert(table: EngineTables.operations, items: [["id": .string(EngineTables.rowID(forOperation: 2))]])])
        #expect(Self.kept(ahead) == [1, 3])
    }

    @Test func anOperationRowIdThatNamesNoOperationDropsEverything() {
        var ahead = Self.marked()
        ahead.forget(touchedBy: [.delete(table: EngineTables.operations, ids: ["not-an-operation"])])
        #expect(Self.kept(ahead) == [])
    }

    @Test func clearingATableDropsItsOperationsAndClearingTheQueueDropsAll() {
        var ahead = Self.marked()
        ahead.forget(touchedBy: [.deleteAll(table: "T", matching: nil)])
        #expect(Self.kept(ahead) == [3])
        ahead.forget(touchedBy: [.deleteAll(table: EngineTables.operations, matching: Field("table") == "U")])
        #expect(Self.kept(ahead) == [])
    }

    @Test func changesToOtherTablesAndItemsKeepEverything() {
        var ahead = Self.marked()
        ahead.forget(touchedBy: [.upsert(table: "U", items: [["id": "b"]]), .delete(table: "T", ids: ["c"])])
        #expect(Self.kept(ahead) == [1, 2, 3])
        #expect(ahead.take(2)?.item == ["id": "b"])
        #expect(ahead.take(2) == nil, "taking removes the entry")
    }
}
