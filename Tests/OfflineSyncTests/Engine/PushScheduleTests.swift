import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// The push's schedule as a pure value: which operation may go next with several in flight.
struct PushScheduleTests {
    static func operation(_ id: Int64, _ kind: TableOperation.Kind, _ itemId: String, table: String = "T") -> TableOperation {
        TableOperation(id: id, kind: kind, table: table, itemId: itemId, item: nil)
    }

    /// A declared reference to item `itemId` of `table`.
    static func declared(_ itemId: String, table: String = "T") -> PushSchedule.References {
        PushSchedule.References(declared: [ItemKey(table: table, itemId: itemId)])
    }

    /// Takes every candidate the schedule offers now, as a push with room for all of them would.
    static func startAll(_ schedule: inout PushSchedule) -> [Int64] {
        var started: [Int64] = []
        while let id = schedule.nextCandidate() {
            schedule.started(id)
            started.append(id)
        }
        return started
    }

    @Test func operationsOfOneItemGoOneAfterAnotherAndOthersAlongside() {
        var schedule = PushSchedule()
        schedule.add([Self.operation(1, .insert, "a"), Self.operation(2, .update, "A"), Self.operation(3, .insert, "b")])
        #expect(Self.startAll(&schedule) == [1, 3], "the update of a (matched case-insensitively) waits")
        schedule.finished(1, .succeeded)
        #expect(Self.startAll(&schedule) == [2])
    }

    @Test func anItemReferringToAQueuedInsertWaitsUntilItSucceeded() {
        var schedule = PushSchedule()
        schedule.add([Self.operation(1, .insert, "r1"), Self.operation(2, .insert, "r2")])
        let first = schedule.nextCandidate()
        #expect(first == 1)
        #expect(schedule.decide(1, kind: .insert, references: Self.declared("r2")) == .wait([2]))
        schedule.park(1, until: [2])
        #expect(schedule.nextCandidate() == 2)
        #expect(schedule.decide(2, kind: .insert, references: .init()) == .send)
        schedule.started(2)
        #expect(schedule.nextCandidate() == nil, "r1 stays parked while r2 is in flight")
        schedule.finished(2, .succeeded)
        #expect(schedule.nextCandidate() == 1)
        #expect(schedule.decide(1, kind: .insert, references: Self.declared("r2")) == .send)
    }

    @Test func anItemReferringToAFailedInsertIsRefused() {
        var schedule = PushSchedule()
        schedule.add([Self.operation(1, .insert, "parent", table: "P"), Self.operation(2, .insert, "child", table: "C")])
        #expect(schedule.decide(2, kind: .insert, references: Self.declared("parent", table: "P")) == .wait([1]))
        schedule.park(2, until: [1])
        schedule.started(1)
        schedule.finished(1, .failed)
        #expect(schedule.nextCandidate() == 2)
        #expect(schedule.decide(2, kind: .insert, references: Self.declared("parent", table: "P")) == .refuse(table: "P", itemId: "parent"))
    }

    @Test func anItemReferringToAFailedInsertByAnInferredReferenceWaitsForItButIsSent() {
        var schedule = PushSchedule()
        schedule.add([Self.operation(1, .insert, "parent", table: "P"), Self.operation(2, .insert, "child", table: "C")])
        let inferred = PushSchedule.References(inferred: [ItemKey(table: "P", itemId: "parent")])
        #expect(schedule.decide(2, kind: .insert, references: inferred) == .wait([1]))
        schedule.park(2, until: [1])
        schedule.started(1)
        schedule.finished(1, .failed)
        #expect(schedule.nextCandidate() == 2)
        #expect(schedule.decide(2, kind: .insert, references: inferred) == .send)
    }

    @Test func aDeleteWaitsForTheOperationsReferringToItsItem() {
        var schedule = PushSchedule()
        schedule.add([Self.operation(1, .delete, "p", table: "P"), Self.operation(2, .update, "c", table: "C")])
        #expect(schedule.unknownReferences(forDeleteOf: 1) == [2])
        schedule.learn(2, references: Self.declared("p", table: "P"))
        #expect(schedule.unknownReferences(forDeleteOf: 1).isEmpty)
        #expect(schedule.decide(1, kind: .delete, references: .init()) == .wait([2]))
        schedule.park(1, until: [2])
        #expect(Self.startAll(&schedule) == [2])
        schedule.finished(2, .failed)
        #expect(schedule.nextCandidate() == 1, "a finished referrer releases the delete, even when it failed")
        #expect(schedule.decide(1, kind: .delete, references: .init()) == .send)
    }

    @Test func aCycleOfReferencesFallsBackToQueueOrder() {
        var schedule = PushSchedule()
        schedule.add([Self.operation(1, .insert, "x"), Self.operation(2, .insert, "y")])
        #expect(schedule.decide(1, kind: .insert, references: Self.declared("y")) == .wait([2]))
        schedule.park(1, until: [2])
        #expect(schedule.decide(2, kind: .insert, references: Self.declared("x")) == .wait([1]))
        schedule.park(2, until: [1])
        #expect(schedule.nextCandidate() == nil && schedule.inFlightCount == 0)
        let released = schedule.releaseLowestParked()
        #expect(released)
        #expect(schedule.nextCandidate() == 1)
        #expect(schedule.decide(1, kind: .insert, references: Self.declared("y")) == .send, "released from the cycle, it goes whatever it refers to")
    }

    /// Declared fields name items of their referenced table; undeclared, only a top-level string field named after a
    /// scheduled table (`<table>Id`, `<table>_id`, ignoring case) names one, of that table.
    @Test func referencesAreDeclaredFieldsAndFieldsNamedAfterAScheduledTable() {
        var schedule = PushSchedule()
        schedule.add([Self.operation(1, .insert, "l1", table: "TodoList"), Self.operation(2, .insert, "t1", table: "Tag"),
                      Self.operation(3, .insert, "t2", table: "Tag"), Self.operation(4, .insert, "red", table: "Tag"),
                      Self.operation(5, .insert, "v9", table: "Tag"), Self.operation(6, .insert, "self", table: "Task")])
        let item: JSONObject = ["id": "self", "todoListId": "L1", "tag_id": "t1", "color": "red", "version": "v9",
                                "listId": "l1", "tagIds": ["t1", "t2"], "nested": ["tagId": "t2"], "TAGID": 3,
                                "taskId": "t1"]
        let list = ItemKey(table: "TodoList", itemId: "l1")
        let (t1, t2) = (ItemKey(table: "Tag", itemId: "t1"), ItemKey(table: "Tag", itemId: "t2"))
        #expect(schedule.references(of: item, table: "Task", relations: []) == .init(inferred: [list, t1]))
        let relations = [TableRelation(table: "Task", field: "tagIds", referencedTable: "Tag"),
                         TableRelation(table: "Task", field: "listId", referencedTable: "TodoList"),
                         TableRelation(table: "Task", field: "tag_id", referencedTable: "Tag")]
        #expect(schedule.references(of: item, table: "Task", relations: relations)
                == .init(declared: [list, t1, t2], inferred: [list]), "a declared field is not inferred too")
        #expect(schedule.references(of: item, table: "Other", relations: relations) == .init(inferred: [list, t1]))
    }

    @Test func anOperationAddedAfterHigherOnesTakesItsPlaceInQueueOrder() {
        var schedule = PushSchedule()
        schedule.add([Self.operation(1, .insert, "a"), Self.operation(5, .insert, "c")])
        schedule.started(1)
        schedule.finished(1, .succeeded)
        schedule.add([Self.operation(3, .insert, "b")])
        #expect(schedule.upcoming(after: 1, limit: 4) == [3, 5])
        #expect(Self.startAll(&schedule) == [3, 5])
    }

    @Test func upcomingListsTheUnstartedOperationsAfterOne() {
        var schedule = PushSchedule()
        schedule.add((1...5).map { Self.operation($0, .insert, "i\($0)") })
        schedule.started(1)
        schedule.started(3)
        #expect(schedule.upcoming(after: 1, limit: 2) == [2, 4])
    }

    @Test func aDeleteWaitsForAReferringTablesOperationAlreadyInFlight() {
        var schedule = PushSchedule(relations: [TableRelation(table: "Child", field: "parent", referencedTable: "Parent")])
        schedule.add([Self.operation(1, .update, "c", table: "Child"), Self.operation(2, .delete, "p", table: "Parent")])
        #expect(schedule.nextCandidate() == 1)
        #expect(schedule.decide(1, kind: .update, references: Self.declared("q", table: "Parent")) == .send, "it no longer names p")
        schedule.started(1)
        #expect(schedule.nextCandidate() == 2)
        #expect(schedule.decide(2, kind: .delete, references: .init()) == .wait([1]), "the in-flight update may still hold p on the server")
    }

    @Test func aParentsDeleteWaitsForTheDeleteOfAChildWhoseSnapshotNamesIt() {
        var schedule = PushSchedule()
        schedule.add([Self.operation(1, .delete, "c", table: "Child"), Self.operation(2, .delete, "p", table: "Parent")])
        #expect(schedule.decide(1, kind: .delete, references: Self.declared("p", table: "Parent")) == .send)
        schedule.started(1)
        #expect(schedule.decide(2, kind: .delete, references: .init()) == .wait([1]))
    }

    @Test func aReferenceNamesAnItemOfItsReferencedTableOnly() {
        var schedule = PushSchedule()
        schedule.add([Self.operation(1, .insert, "u1", table: "Profile"), Self.operation(2, .insert, "u1", table: "User"),
                      Self.operation(3, .insert, "u1", table: "Group")])
        let references = schedule.references(of: ["id": "u1", "userId": "u1"], table: "Profile", relations: [])
        #expect(references == .init(inferred: [ItemKey(table: "User", itemId: "u1")]))
        #expect(schedule.decide(1, kind: .insert, references: references) == .wait([2]))
    }

    @Test func anOperationTurnedIntoADeleteDuringThePushNoLongerCountsAsAnInsert() {
        var schedule = PushSchedule()
        schedule.add([Self.operation(1, .insert, "p"), Self.operation(2, .insert, "c")])
        #expect(schedule.decide(1, kind: .delete, references: .init()) == .send)
        #expect(schedule.decide(2, kind: .insert, references: Self.declared("p")) == .send, "p's insert is gone: nothing to wait for")
    }
}
