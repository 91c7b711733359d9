import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

struct OperationCollapseTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var pending: TableOperation.Kind?
        var attempted = false
        var action: TableOperation.Kind
        var expected: OperationCollapse
        var testDescription: String {
            "\(pending?.rawValue ?? "none")\(attempted ? " (attempted)" : "") + \(action.rawValue) -> \(expected)"
        }
    }

    static let table: [Case] = [
        Case(pending: nil, action: .insert, expected: .addNew),
        Case(pending: nil, action: .update, expected: .addNew),
        Case(pending: nil, action: .delete, expected: .addNew),
        Case(pending: .insert, action: .insert, expected: .notAllowed),
        Case(pending: .insert, action: .update, expected: .keep),
        Case(pending: .insert, action: .delete, expected: .remove),
        Case(pending: .insert, attempted: true, action: .insert, expected: .notAllowed),
        Case(pending: .insert, attempted: true, action: .update, expected: .keep),
        Case(pending: .insert, attempted: true, action: .delete, expected: .toDelete),
        Case(pending: .update, action: .insert, expected: .notAllowed),
        Case(pending: .update, action: .update, expected: .keep),
        Case(pending: .update, action: .delete, expected: .toDelete),
        Case(pending: .update, attempted: true, action: .update, expected: .keep),
        Case(pending: .update, attempted: true, action: .delete, expected: .toDelete),
        Case(pending: .delete, action: .insert, expected: .notAllowed),
        Case(pending: .delete, action: .update, expected: .notAllowed),
        Case(pending: .delete, action: .delete, expected: .notAllowed),
        Case(pending: .delete, attempted: true, action: .delete, expected: .notAllowed),
    ]

    @Test(arguments: table)
    func collapseOfPendingOperation(_ item: Case) {
        #expect(OperationCollapse.decide(pending: item.pending, attempted: item.attempted, inFlight: false,
                                         action: item.action) == item.expected)
    }

    @Test(arguments: table)
    func inFlightOperationIsNeverCollapsedInto(_ item: Case) {
        let expected: OperationCollapse = item.expected == .notAllowed ? .notAllowed : .addNew
        #expect(OperationCollapse.decide(pending: item.pending, attempted: item.attempted, inFlight: true,
                                         action: item.action) == expected)
    }

    private static func operation(_ id: Int64, _ kind: TableOperation.Kind, item: JSONObject? = nil, attempted: Bool = false,
                                  sent: [JSONObject] = []) -> TableOperation {
        TableOperation(id: id, kind: kind, table: "T", itemId: "a", item: item, revision: 3, attempted: attempted,
                       sentContents: sent)
    }

    @Test func aFailedAttemptedInsertFoldsWithTheDeleteBehindItIntoOneDeleteAtItsPosition() {
        let insert = Self.operation(1, .insert, attempted: true, sent: [["id": "a", "text": "x"]])
        let delete = Self.operation(5, .delete, item: ["id": "a", "text": "x"])
        guard case .merged(let folded) = OperationCollapse.folding(delete, into: insert) else {
            Issue.record("expected one operation"); return
        }
        #expect(folded.id == 1 && folded.kind == .delete && folded.item == ["id": "a", "text": "x"])
        #expect(folded.attempted && folded.sentContents == [["id": "a", "text": "x"]])
        #expect(folded.revision == 4)
    }

    @Test func aFailedAttemptedUpdateFoldsWithTheUpdateBehindItAndKeepsBothContents() {
        let first = Self.operation(2, .update, attempted: true, sent: [["id": "a", "text": "A"]])
        let second = Self.operation(3, .update, attempted: true, sent: [["id": "a", "text": "B"]])
        guard case .merged(let folded) = OperationCollapse.folding(second, into: first) else {
            Issue.record("expected one operation"); return
        }
        #expect(folded.id == 2 && folded.kind == .update)
        #expect(folded.sentContents == [["id": "a", "text": "A"], ["id": "a", "text": "B"]])
    }

    @Test func anInsertThatNeverLeftAndTheDeleteBehindItBothGo() {
        #expect(OperationCollapse.folding(Self.operation(2, .delete), into: Self.operation(1, .insert)) == .bothRemoved)
        #expect(OperationCollapse.folding(Self.operation(2, .update), into: Self.operation(1, .delete)) == .separate)
    }

    @Test func sentContentsKeepTheNewestDistinctOnes() {
        var operation = Self.operation(1, .update)
        let count = TableOperation.maximumSentContents + 3
        for index in 0..<count { operation.markAttempted(sending: ["id": "a", "n": .int(Int64(index)), "version": "v"]) }
        operation.markAttempted(sending: ["id": "A", "n": 5])
        #expect(operation.sentContents.count == TableOperation.maximumSentContents)
        #expect(operation.sentContents.first == ["id": "a", "n": 3])
        #expect(operation.sentContents.last == ["id": "A", "n": 5])
        #expect(!operation.needsMark(sending: ["id": "a", "n": 7, "updatedAt": "2020-01-01T00:00:00.000Z"]))
        #expect(operation.needsMark(sending: ["id": "a", "n": 1]))
    }

    @Test func onlyAnAttemptedOperationRecognisesItsOwnContentInAServerRow() {
        let server: JSONObject = ["id": "a", "text": "A", "version": "v2"]
        #expect(!Self.operation(1, .update, sent: [["id": "a", "text": "A"]]).earlierAttemptLanded(in: server))
        #expect(Self.operation(1, .update, attempted: true, sent: [["id": "a", "text": "A"]]).earlierAttemptLanded(in: server))
        #expect(!Self.operation(1, .update, attempted: true, sent: [["id": "a", "text": "B"]]).earlierAttemptLanded(in: server))
        #expect(Self.operation(1, .delete, item: ["id": "a", "text": "A", "version": "v1"], attempted: true)
            .earlierAttemptLanded(in: server))
        var deleted = server
        deleted["deleted"] = true
        #expect(!Self.operation(1, .update, attempted: true, sent: [["id": "a", "text": "A"]]).earlierAttemptLanded(in: deleted))
    }
}
