import OfflineSyncCore
import OfflineSyncStore

/// One push as a state machine, events in and actions out: which operation to prepare, to send (in the loop or in a
/// child task) and to finish, when to wait for an answer, when to read the queue again and when the push ends.
/// `SyncContext.pushQueue(tables:settings:)` only carries out its actions (a transaction, a request) and feeds back
/// what came of them, so the rules are tested as tables of events without a remote or a store. Which operation may go
/// next is its ``schedule``'s to say.
///
/// - **How many in flight:** requests go one at a time until ``slowRequestsToWiden`` in a row took longer than
///   ``slowRequest``: over a network the push then keeps `limit` in flight (and ``foundRemoteSlow`` tells the context that
///   its later pushes may start so); against an in-process back end, where several in flight buy nothing but thread
///   switches, it stays one at a time. One at a time, a request is sent in the loop (no child task), and the
///   transaction that finishes an operation may prepare the next one (``Action/finish(_:_:prepareNext:)``).
/// - **Stopping:** an aborted operation (network, 401, cancelled) or a cancelled task stops the push: nothing more is
///   prepared or sent, the answers of the requests in flight are still finished, and then the push ends.
/// - **The queue's end:** when nothing is in flight and nothing may go, the lowest parked operation is released (a
///   cycle of references), else the queue is read again for operations queued during the push; the push ends when
///   that read brings nothing.
struct PushMachine: Sendable {
    typealias Prepared = SyncContext.PreparedOperation

    /// What the loop does next.
    enum Action: Sendable {
        /// Prepare operation `id` in a transaction, marking `markRun` operations attempted in all; then report
        /// ``prepared(_:_:)``.
        case prepare(Int64, markRun: Int)
        /// Send `prepared`: in the loop when `inline` (then report ``answered(_:_:took:)`` with the time it took),
        /// else in a child task, whose answer a later ``waitForAnswer`` brings.
        case send(Int64, Prepared, inline: Bool)
        /// Wait for a child task's answer and report it (``answered(_:_:took:)``).
        case waitForAnswer
        /// Apply the answer `sent` to `prepared` in a transaction, preparing the next operation in it when
        /// `prepareNext`; then report ``finished(_:_:next:)``.
        case finish(Prepared, SentOperation, prepareNext: Bool)
        /// Read the operations queued after `id`, and report them (``read(_:)``).
        case readQueue(after: Int64)
        /// The push is over: ``outcome`` says how it went.
        case end
    }

    /// How a push ended.
    enum Outcome: Sendable {
        /// Every operation was sent or left the queue; `pushed` were accepted.
        case pushed(Int)
        /// It stopped, or some operations failed.
        case failed(PushError.Reason, errors: [TableOperationError], underlying: RemoteError?)
    }

    /// How long a request must take before a push keeps several in flight: a network round trip, not a call into
    /// the same process.
    static let slowRequest = Duration.milliseconds(1)

    /// How many requests in a row must be slow (``slowRequest``) before a push keeps several in flight.
    static let slowRequestsToWiden = 3

    /// Which operation may go next; the loop lends it to the transactions that prepare and finish operations.
    var schedule: PushSchedule
    /// The tables pushed; nil for every table.
    private let tables: Set<String>?
    private let limit: Int
    private var inFlightLimit: Int
    private var slowInARow = 0
    /// The highest operation id read from the queue.
    private var lastRead: Int64
    /// How many operations the first read brought: the progress's total.
    let total: Int
    private(set) var pushed = 0
    /// How many operations finished (pushed, failed or aborted).
    private(set) var done = 0
    private var errors: [TableOperationError] = []
    private var stop: (reason: PushError.Reason, underlying: RemoteError?)?
    /// The operations sent and not answered yet.
    private var inFlight: [Int64: Prepared] = [:]
    /// An answer to finish before anything else.
    private var answer: (prepared: Prepared, sent: SentOperation)?
    /// An operation made ready (by ``prepared(_:_:)`` or a finishing transaction), to send next.
    private var ready: (id: Int64, prepared: Prepared)?
    private var ended = false

    /// A push of the operations of `firstRead` (the whole queue, read once) in `tables` (nil: every table) and of
    /// `dependencies` (operations of other tables that those refer to), with up to `limit` in flight once widened;
    /// `startsWide` when the context already found the remote slow.
    init(firstRead: [TableOperation], tables: Set<String>?, dependencies: Set<Int64> = [], limit: Int, startsWide: Bool,
         relations: [TableRelation]) {
        self.tables = tables
        self.limit = max(1, limit)
        inFlightLimit = startsWide ? self.limit : 1
        schedule = PushSchedule(relations: relations)
        lastRead = firstRead.last?.id ?? 0
        let batch = firstRead.filter { tables?.contains($0.table) ?? true || dependencies.contains($0.id) }
        schedule.add(batch)
        total = batch.count
    }

    /// Whether ``slowRequestsToWiden`` requests in a row were slow: the context's later pushes start wide.
    private(set) var foundRemoteSlow = false

    /// How the push ended; meaningful once ``nextAction(cancelled:)`` returned ``Action/end``.
    var outcome: Outcome {
        if let stop { return .failed(stop.reason, errors: errors, underlying: stop.underlying) }
        if !errors.isEmpty { return .failed(.operationErrors, errors: errors, underlying: nil) }
        return .pushed(pushed)
    }

    /// The operations marked in flight whose answers will not be finished: those sent and not answered, and one made
    /// ready and not sent. What a push that the store failed must unmark.
    var unfinished: [Int64] { inFlight.keys.sorted() + (ready.map { [$0.id] } ?? []) }

    /// The next action; `cancelled` when the calling task is cancelled (the push then stops as on an abort).
    mutating func nextAction(cancelled: Bool) -> Action {
        while !ended {
            if let answer {
                self.answer = nil
                return .finish(answer.prepared, answer.sent, prepareNext: inFlightLimit == 1 && stop == nil)
            }
            if stop == nil, schedule.inFlightCount < inFlightLimit {
                if let ready {
                    self.ready = nil
                    schedule.started(ready.id)
                    inFlight[ready.id] = ready.prepared
                    return .send(ready.id, ready.prepared, inline: inFlightLimit == 1)
                }
                if let candidate = schedule.nextCandidate() {
                    if !cancelled { return .prepare(candidate, markRun: SyncContext.attemptMarkRun(afterSending: done)) }
                    stop = (.cancelled, nil)
                }
            }
            if schedule.inFlightCount > 0 { return .waitForAnswer }
            if stop != nil { break }
            if schedule.releaseLowestParked() { continue }
            if cancelled {
                stop = (.cancelled, nil)
                break
            }
            return .readQueue(after: lastRead)
        }
        ended = true
        return .end
    }

    /// The run's budget refused the request of the operation ``Action/prepare(_:markRun:)`` named: the push stops as
    /// on cancellation, finishing the answers of the requests in flight.
    mutating func stopForBudget() {
        if stop == nil { stop = (.cancelled, nil) }
    }

    /// Preparing operation `id` came to `step`.
    mutating func prepared(_ id: Int64, _ step: SyncContext.PreparedStep) {
        switch step {
        case .gone: schedule.finished(id, .gone)
        case .wait(let others): schedule.park(id, until: others)
        case .ready(let prepared): ready = (id, prepared)
        }
    }

    /// Operation `id` was answered with `sent`; `took` is how long the request took when sent in the loop. `updated`
    /// is the operation as the send left it (``SyncContext/send(_:)``), which the finish then starts from; nil: as
    /// it was sent.
    mutating func answered(_ id: Int64, _ sent: SentOperation, as updated: Prepared? = nil, took: Duration? = nil) {
        guard let prepared = inFlight.removeValue(forKey: id) else { return }
        answer = (updated ?? prepared, sent)
        guard let took, inFlightLimit == 1 else { return }
        slowInARow = took > Self.slowRequest ? slowInARow + 1 : 0
        if slowInARow >= Self.slowRequestsToWiden {
            inFlightLimit = limit
            foundRemoteSlow = true
        }
    }

    /// Operation `id` finished as `finished`; the finishing transaction made `next` ready, when it prepared one.
    mutating func finished(_ id: Int64, _ finished: SyncContext.FinishedOperation,
                           next: (id: Int64, prepared: Prepared)?) {
        switch finished {
        case .pushed: pushed += 1
        case .failed(let error): errors.append(error)
        case .aborted(let reason, let underlying): if stop == nil { stop = (reason, underlying) }
        }
        done += 1
        // A finishing transaction prepares a next operation only when the push goes on.
        ready = next
    }

    /// The queue read after the last read brought `operations` (nothing: the push is over), and the operations of
    /// other tables, queued before, that those depend on (`dependencies`, in queue order).
    mutating func read(_ operations: [TableOperation], dependencies: [TableOperation] = []) {
        guard let last = operations.last?.id else {
            ended = true
            return
        }
        lastRead = last
        let added = operations.filter { tables?.contains($0.table) ?? true }
        schedule.add(dependencies.isEmpty ? added : (dependencies + added).sorted { $0.id < $1.id })
    }
}
