@testable import OfflineSyncCore
@testable import OfflineSyncEngine
import Testing

/// The push's machine as tables of events: each row is an action the machine must ask for, or an event fed back to
/// it (an operation prepared, answered, finished; the queue read again; the task cancelled).
struct PushMachineTests {
    /// An action, without the values the machine carries through.
    enum Expected: Equatable {
        case prepare(Int64)
        case send(Int64, inline: Bool)
        case waitForAnswer
        case finish(Int64, prepareNext: Bool)
        case readQueue(after: Int64)
        case end
    }

    /// How an operation finished, as the finishing transaction reports it.
    enum Ending {
        case pushed
        case failed
        case aborted(PushError.Reason)
    }

    enum Row {
        /// The machine's next action must be this one.
        case next(Expected)
        /// Preparing the operation made it ready to send.
        case ready(Int64)
        /// Preparing the operation parked it until these operations finished.
        case parked(Int64, until: [Int64])
        /// The operation left the queue before it was sent.
        case gone(Int64)
        /// The operation was answered; `took` milliseconds when sent in the loop.
        case answered(Int64, took: Int? = nil)
        /// The operation finished; its transaction prepared `next`.
        case finished(Int64, Ending, next: Int64? = nil)
        /// A read of the queue brought these operations (table `T` unless given).
        case read([TableOperation])
        /// The calling task is cancelled from here on.
        case cancel
    }

    static func operation(_ id: Int64, _ itemId: String? = nil, table: String = "T") -> TableOperation {
        TableOperation(id: id, kind: .insert, table: table, itemId: itemId ?? "i\(id)", item: nil)
    }

    static func prepared(_ id: Int64) -> SyncContext.PreparedOperation {
        SyncContext.PreparedOperation(operation: operation(id), body: ["id": .string("i\(id)")], problem: nil)
    }

    static func machine(_ ids: [Int64], limit: Int = 4, startsWide: Bool = false, tables: Set<String>? = nil) -> PushMachine {
        PushMachine(firstRead: ids.map { operation($0) }, tables: tables, limit: limit, startsWide: startsWide, relations: [])
    }

    @discardableResult
    func play(_ table: [Row], on start: PushMachine, sourceLocation: SourceLocation = #_sourceLocation) -> PushMachine {
        var machine = start
        var cancelled = false
        for (number, row) in table.enumerated() {
            switch row {
            case .next(let expected):
                let action = Self.expected(machine.nextAction(cancelled: cancelled))
                #expect(action == expected, "row \(number)", sourceLocation: sourceLocation)
            case .ready(let id):
                machine.prepared(id, .ready(Self.prepared(id)))
            case .parked(let id, let others):
                machine.prepared(id, .wait(others))
            case .gone(let id):
                machine.prepared(id, .gone)
            case .answered(let id, let took):
                machine.answered(id, .succeeded(serverItem: nil), took: took.map { .milliseconds($0) })
            case .finished(let id, let ending, let next):
                let finished: SyncContext.FinishedOperation = switch ending {
                case .pushed: .pushed
                case .failed: .failed(TableOperationError(operation: Self.operation(id), item: nil, serverItem: nil,
                                                          statusCode: 500, message: "failed"))
                case .aborted(let reason): .aborted(reason, nil)
                }
                machine.schedule.finished(id, finished.ending)
                machine.finished(id, finished, next: next.map { ($0, Self.prepared($0)) })
            case .read(let operations):
                machine.read(operations)
            case .cancel:
                cancelled = true
            }
        }
        return machine
    }

    static func expected(_ action: PushMachine.Action) -> Expected {
        switch action {
        case .prepare(let id, _): .prepare(id)
        case .send(let id, _, let inline): .send(id, inline: inline)
        case .waitForAnswer: .waitForAnswer
        case .finish(let prepared, _, let prepareNext): .finish(prepared.operation.id, prepareNext: prepareNext)
        case .readQueue(let after): .readQueue(after: after)
        case .end: .end
        }
    }

    /// Operation `id` prepared, sent in the loop taking `took` ms, and finished as pushed (preparing `next`).
    static func inline(_ id: Int64, took: Int = 0, next: Int64? = nil, prepare: Bool = true, prepareNext: Bool = true) -> [Row] {
        (prepare ? [.next(.prepare(id)), .ready(id)] : []) + [
            .next(.send(id, inline: true)), .answered(id, took: took), .next(.finish(id, prepareNext: prepareNext)),
            .finished(id, .pushed, next: next),
        ]
    }

    @Test func oneAtATimeTheFinishingTransactionPreparesTheNextAndAnEmptyReadEnds() {
        let machine = play(Self.inline(1, next: 2) + Self.inline(2, prepare: false) + [
            .next(.readQueue(after: 2)), .read([]), .next(.end), .next(.end),
        ], on: Self.machine([1, 2]))
        guard case .pushed(2) = machine.outcome else { Issue.record("outcome \(machine.outcome)"); return }
        #expect(machine.done == 2 && machine.total == 2 && !machine.foundRemoteSlow)
    }

    @Test func threeSlowRequestsInARowWidenThePushToItsLimit() {
        // The third slow answer widens the push before it is finished: its transaction prepares nothing next.
        let machine = play(Self.inline(1, took: 5) + Self.inline(2, took: 5) + Self.inline(3, took: 5, prepareNext: false) + [
            .next(.prepare(4)), .ready(4), .next(.send(4, inline: false)),
            .next(.prepare(5)), .ready(5), .next(.send(5, inline: false)),
            .next(.prepare(6)), .ready(6), .next(.send(6, inline: false)),
            .next(.waitForAnswer), .answered(5), .next(.finish(5, prepareNext: false)),
        ], on: Self.machine([1, 2, 3, 4, 5, 6], limit: 3))
        #expect(machine.foundRemoteSlow)
    }

    @Test func aFastRequestBetweenSlowOnesKeepsThePushOneAtATime() {
        let machine = play(Self.inline(1, took: 5) + Self.inline(2, took: 5) + Self.inline(3, took: 0)
            + Self.inline(4, took: 5) + [.next(.prepare(5)), .ready(5), .next(.send(5, inline: true))],
            on: Self.machine([1, 2, 3, 4, 5]))
        #expect(!machine.foundRemoteSlow)
    }

    @Test func aContextThatFoundTheRemoteSlowStartsWideAndFinishesAnswersInTheOrderTheyCome() {
        play([
            .next(.prepare(1)), .ready(1), .next(.send(1, inline: false)),
            .next(.prepare(2)), .ready(2), .next(.send(2, inline: false)),
            .next(.waitForAnswer), .answered(2), .next(.finish(2, prepareNext: false)), .finished(2, .pushed),
            .next(.prepare(3)), .ready(3), .next(.send(3, inline: false)), .next(.waitForAnswer),
        ], on: Self.machine([1, 2, 3], limit: 2, startsWide: true))
    }

    @Test func anAbortSendsNothingMoreButFinishesTheAnswersInFlightThenEnds() {
        let machine = play([
            .next(.prepare(1)), .ready(1), .next(.send(1, inline: false)),
            .next(.prepare(2)), .ready(2), .next(.send(2, inline: false)),
            .next(.waitForAnswer), .answered(1), .next(.finish(1, prepareNext: false)), .finished(1, .aborted(.network)),
            .next(.waitForAnswer), .answered(2), .next(.finish(2, prepareNext: false)), .finished(2, .pushed),
            .next(.end),
        ], on: Self.machine([1, 2, 3], limit: 2, startsWide: true))
        guard case .failed(.network, let errors, _) = machine.outcome else { Issue.record("outcome \(machine.outcome)"); return }
        #expect(errors.isEmpty && machine.pushed == 1)
    }

    @Test func aCancelledTaskPreparesNothingMoreAndEndsCancelled() {
        let machine = play(Self.inline(1) + [.cancel, .next(.end)], on: Self.machine([1, 2]))
        guard case .failed(.cancelled, _, _) = machine.outcome else { Issue.record("outcome \(machine.outcome)"); return }
    }

    @Test func failedOperationsLetThePushGoOnAndEndItWithTheirErrors() {
        let machine = play([
            .next(.prepare(1)), .ready(1), .next(.send(1, inline: true)), .answered(1, took: 0),
            .next(.finish(1, prepareNext: true)), .finished(1, .failed),
        ] + Self.inline(2) + [.next(.readQueue(after: 2)), .read([]), .next(.end)], on: Self.machine([1, 2]))
        guard case .failed(.operationErrors, let errors, _) = machine.outcome else {
            Issue.record("outcome \(machine.outcome)")
            return
        }
        #expect(errors.map(\.operation.id) == [1] && machine.pushed == 1)
    }

    @Test func operationsThatWaitForEachOtherAreReleasedLowestFirst() {
        play([
            .next(.prepare(1)), .parked(1, until: [2]), .next(.prepare(2)), .parked(2, until: [1]),
            // Nothing in flight, nothing may go: the cycle falls back to queue order.
            .next(.prepare(1)), .ready(1), .next(.send(1, inline: true)),
        ], on: Self.machine([1, 2]))
    }

    @Test func anOperationThatLeftTheQueueIsSkipped() {
        play([.next(.prepare(1)), .gone(1), .next(.prepare(2))], on: Self.machine([1, 2]))
    }

    @Test func aReadDuringThePushAddsOnlyTheOperationsOfThePushedTables() {
        let first = [Self.operation(1), Self.operation(2, table: "U")]
        let machine = play(Self.inline(1) + [
            .next(.readQueue(after: 2)), .read([Self.operation(3, table: "U"), Self.operation(4)]),
            .next(.prepare(4)), .ready(4),
        ], on: PushMachine(firstRead: first, tables: ["T"], limit: 4, startsWide: false, relations: []))
        #expect(machine.total == 1)
    }

    @Test func anAnswerForAnOperationNotInFlightIsIgnored() {
        play([.next(.prepare(1)), .answered(7), .next(.prepare(1))], on: Self.machine([1]))
    }

    @Test func theUnfinishedOperationsAreThoseSentAndUnansweredAndOneMadeReady() {
        let wide = play([
            .next(.prepare(1)), .ready(1), .next(.send(1, inline: false)),
            .next(.prepare(2)), .ready(2), .next(.send(2, inline: false)),
            .next(.prepare(3)), .ready(3), .next(.send(3, inline: false)), .answered(2),
        ], on: Self.machine([1, 2, 3], limit: 3, startsWide: true))
        #expect(wide.unfinished == [1, 3])
        let oneAtATime = play(Self.inline(1, next: 2), on: Self.machine([1, 2]))
        #expect(oneAtATime.unfinished == [2])
    }
}
