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
        #expect(schedule.decide(1, kind: .insert, references: ["r2"]) == .wait([2]))
        schedule.park(1, until: [2])
        #expect(schedule.nextCandidate() == 2)
        #expect(schedule.decide(2, kind: .insert, references: []) == .send)
        schedule.started(2)
        #expect(schedule.nextCandidate() == nil, "r1 stays parked while r2 is in flight")
        schedule.finished(2, .succeeded)
        #expect(schedule.nextCandidate() == 1)
        #expect(schedule.decide(1, kind: .insert, references: ["r2"]) == .send)
    }

    @Test func anItemReferringToAFailedInsertIsRefused() {
        var schedule = PushSchedule()
        schedule.add([Self.operation(1, .insert, "parent", table: "P"), Self.operation(2, .insert, "child", table: "C")])
        #expect(schedule.decide(2, kind: .insert, references: ["parent"]) == .wait([1]))
        schedule.park(2, until: [1])
        schedule.started(1)
        schedule.finished(1, .failed)
        #expect(schedule.nextCandidate() == 2)
        #expect(schedule.decide(2, kind: .insert, references: ["parent"]) == .refuse(table: "P", itemId: "parent"))
    }

    @Test func aDeleteWaitsForTheOperationsReferringToItsItem() {
        var schedule = PushSchedule()
        schedule.add([Self.operation(1, .delete, "p", table: "P"), Self.operation(2, .update, "c", table: "C")])
        #expect(schedule.unknownReferences(forDeleteOf: 1) == [2])
        schedule.learn(2, references: ["p"])
        #expect(schedule.unknownReferences(forDeleteOf: 1).isEmpty)
        #expect(schedule.decide(1, kind: .delete, references: []) == .wait([2]))
        schedule.park(1, until: [2])
        #expect(Self.startAll(&schedule) == [2])
        schedule.finished(2, .failed)
        #expect(schedule.nextCandidate() == 1, "a finished referrer releases the delete, even when it failed")
        #expect(schedule.decide(1, kind: .delete, references: []) == .send)
    }

    @Test func aCycleOfReferencesFallsBackToQueueOrder() {
        var schedule = PushSchedule()
        schedule.add([Self.operation(1, .insert, "x"), Self.operation(2, .insert, "y")])
        #expect(schedule.decide(1, kind: .insert, references: ["y"]) == .wait([2]))
        schedule.park(1, until: [2])
        #expect(schedule.decide(2, kind: .insert, references: ["x"]) == .wait([1]))
        schedule.park(2, until: [1])
        #expect(schedule.nextCandidate() == nil && schedule.inFlightCount == 0)
        let released = schedule.releaseLowestParked()
        #expect(released)
        #expect(schedule.nextCandidate() == 1)
        #expect(schedule.decide(1, kind: .insert, references: ["y"]) == .send, "released from the cycle, it goes whatever it refers to")
    }

    @Test func referencesAreTopLevelStringsAndDeclaredArraysOfScheduledItemsButNotIdsOrSystemProperties() {
        var schedule = PushSchedule()
        schedule.add(["self", "l1", "t1", "t2", "n1", "v9", "other"].enumerated().map { Self.operation(Int64($0.offset + 1), .insert, $0.element) })
        let item: JSONObject = ["id": "self", "listId": "L1", "version": "v9", "count": 3, "title": "not scheduled",
                                "tagIds": ["t1", "t2"], "nested": ["inner": "n1"]]
        #expect(schedule.references(of: item, table: "Task", relations: []) == ["l1"])
        let relation = TableRelation(table: "Task", field: "tagIds", referencedTable: "Tag")
        #expect(schedule.references(of: item, table: "Task", relations: [relation]) == ["l1", "t1", "t2"])
        #expect(schedule.references(of: item, table: "Other", relations: [relation]) == ["l1"])
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
        #expect(schedule.decide(1, kind: .update, references: ["q"]) == .send, "it no longer names p")
        schedule.started(1)
        #expect(schedule.nextCandidate() == 2)
        #expect(schedule.decide(2, kind: .delete, references: []) == .wait([1]), "the in-flight update may still hold p on the server")
    }

    @Test func aParentsDeleteWaitsForTheDeleteOfAChildWhoseSnapshotNamesIt() {
        var schedule = PushSchedule()
        schedule.add([Self.operation(1, .delete, "c", table: "Child"), Self.operation(2, .delete, "p", table: "Parent")])
        #expect(schedule.decide(1, kind: .delete, references: ["p"]) == .send)
        schedule.started(1)
        #expect(schedule.decide(2, kind: .delete, references: []) == .wait([1]))
    }

    @Test func aReferenceToAnItemOfAnotherTableWithTheSameIdWaitsForItsInsert() {
        var schedule = PushSchedule()
        schedule.add([Self.operation(1, .insert, "u1", table: "Profile"), Self.operation(2, .insert, "u1", table: "User")])
        #expect(schedule.decide(1, kind: .insert, references: ["u1"]) == .wait([2]))
    }

    @Test func anOperationTurnedIntoADeleteDuringThePushNoLongerCountsAsAnInsert() {
        var schedule = PushSchedule()
        schedule.add([Self.operation(1, .insert, "p"), Self.operation(2, .insert, "c")])
        #expect(schedule.decide(1, kind: .delete, references: []) == .send)
        #expect(schedule.decide(2, kind: .insert, references: ["p"]) == .send, "p's insert is gone: nothing to wait for")
    }
}
