import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// The stored forms of operations and errors.
struct OperationRecordTests {
    @Test func anInsertOperationRoundTripsWithoutItsItem() throws {
        let operation = TableOperation(id: 7, kind: .insert, table: "TodoItem", itemId: "ABC", item: ["id": "ABC", "text": "x"], revision: 2)
        let row = OperationStore.row(for: operation)
        #expect(row["item"] == nil)
        #expect(row["id"] == "0000000000000000007")
        var expected = operation
        expected.item = nil
        #expect(try OperationStore.operation(from: row) == expected)
    }

    @Test func aDeleteOperationRoundTripsWithItsSnapshot() throws {
        let operation = TableOperation(id: 1, kind: .delete, table: "TodoItem", itemId: "1",
                                       item: ["id": "1", "column1": true, "column2": "Hello"])
        #expect(try OperationStore.operation(from: OperationStore.row(for: operation)) == operation)
    }

    @Test func anAttemptedOperationRoundTripsWithWhatItSent() throws {
        let operation = TableOperation(id: 4, kind: .update, table: "TodoItem", itemId: "a", item: nil, revision: 1,
                                       attempted: true, sentContents: [["id": "a", "text": "A"], ["id": "a", "text": "B"]])
        let row = OperationStore.row(for: operation)
        #expect(row["attempted"] == true)
        #expect(try OperationStore.operation(from: row) == operation)
        let plain = OperationStore.row(for: TableOperation(id: 5, kind: .update, table: "T", itemId: "b", item: nil))
        #expect(plain["attempted"] == nil && plain["sent"] == nil)
    }

    @Test func anOperationRowWhoseSentContentsAreNotObjectsIsACorruptRecordError() {
        var row = OperationStore.row(for: TableOperation(id: 4, kind: .update, table: "T", itemId: "a", item: nil))
        for damaged: JSONValue in ["text", [1], [["id": "a"], "x"]] {
            row["sent"] = damaged
            #expect(throws: SyncError.self) { try OperationStore.operation(from: row) }
        }
    }

    @Test func rowIdsSortLikeOperationIdsAndAreValidItemIds() {
        let ids: [Int64] = [1, 9, 10, 123_456_789, Int64.max]
        let rows = ids.map(EngineTables.rowID(forOperation:))
        #expect(rows == rows.sorted())
        #expect(rows.allSatisfy(ItemID.isValid))
        #expect(rows == ["0000000000000000001", "0000000000000000009", "0000000000000000010", "0000000000123456789",
                         "9223372036854775807"])
        #expect(rows.map { Int64($0) } == ids)
    }

    @Test func aDamagedOperationRowIsACorruptRecordError() {
        #expect(throws: SyncError.self) { try OperationStore.operation(from: ["id": "x", "kind": "upsert"]) }
    }

    @Test func anErrorRoundTripsWithItsOperationIdAndRevision() throws {
        let operation = TableOperation(id: 3, kind: .update, table: "TodoItem", itemId: "ABC", item: ["id": "ABC"], revision: 4,
                                       attempted: true, sentContents: [["id": "ABC", "text": "sent"]])
        let error = TableOperationError(operation: operation, item: ["id": "ABC"], serverItem: ["id": "ABC", "text": "s"],
                                        statusCode: 412, message: "changed")
        guard case .upsert(_, let rows) = OperationErrorStore.saving(error), let row = rows.first else {
            Issue.record("expected one upserted row"); return
        }
        let restored = try OperationErrorStore.error(from: row)
        #expect(restored.operation == operation)
        #expect(restored.serverItem == error.serverItem && restored.statusCode == 412 && restored.message == "changed")
    }
}
