import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// The write pipeline's decisions, event by event, with the time a write took given by the test.
struct CommitPipelineTests {
    typealias Pipeline = CommitPipeline<String>

    /// A group-commit pipeline that wrote "a" alone (taking `firstWriteTook`) and now writes "b" and "c", which
    /// were queued meanwhile.
    static func writingAGroupOfTwo(firstWriteTook: Duration) -> Pipeline {
        var pipeline = Pipeline(groupsBatches: true)
        #expect(pipeline.enqueue("a") == .write(["a"]))
        #expect(pipeline.enqueue("b") == .none)
        #expect(pipeline.enqueue("c") == .none)
        #expect(pipeline.writeFinished(duration: firstWriteTook) == .write(["b", "c"]))
        return pipeline
    }

    @Test func aLoneWriterIsWrittenAtOnceAndTheTurnIsGivenAwayOnceBeforeIdling() {
        var pipeline = Pipeline(groupsBatches: true)
        #expect(pipeline.enqueue("a") == .write(["a"]))
        #expect(pipeline.isRunning)
        #expect(pipeline.writeFinished(duration: .microseconds(150)) == .yieldTurn)
        #expect(pipeline.turnReturned() == .becameIdle)
        #expect(pipeline.isDrained)
    }

    @Test func batchesQueuedDuringAWriteShareTheNextOne() {
        // The helper's expectations are this test: "b" and "c", queued while "a" was written, go out together.
        _ = Self.writingAGroupOfTwo(firstWriteTook: .microseconds(150))
    }

    @Test func aBatchQueuedWhileTheTurnIsAwayJoinsTheNextWrite() {
        var pipeline = Pipeline(groupsBatches: true)
        _ = pipeline.enqueue("a")
        #expect(pipeline.writeFinished(duration: .microseconds(150)) == .yieldTurn)
        #expect(pipeline.enqueue("b") == .none)
        #expect(pipeline.enqueue("c") == .none)
        #expect(pipeline.turnReturned() == .write(["b", "c"]))
    }

    @Test func afterAGroupTheNextWaitsUntilAsManyBatchesAreQueued() {
        var pipeline = Self.writingAGroupOfTwo(firstWriteTook: .microseconds(150))
        #expect(pipeline.enqueue("d") == .none)
        #expect(pipeline.writeFinished(duration: .microseconds(400)) == .startTimer(wait: 1, delay: .microseconds(200)))
        #expect(pipeline.enqueue("e") == .write(["d", "e"]))
        #expect(pipeline.timerFired(wait: 1) == .none, "a stale timer does nothing")
    }

    @Test func theCommitDelayIsHalfTheLastWriteAndAtMostTwoMilliseconds() {
        var pipeline = Self.writingAGroupOfTwo(firstWriteTook: .milliseconds(1))
        #expect(pipeline.writeFinished(duration: .milliseconds(9)) == .startTimer(wait: 1, delay: .milliseconds(2)))
    }

    @Test func aTimerEndsTheWaitWithWhateverIsQueuedOrIdlesWhenNothingIs() {
        var pipeline = Self.writingAGroupOfTwo(firstWriteTook: .microseconds(100))
        _ = pipeline.enqueue("d")
        #expect(pipeline.writeFinished(duration: .microseconds(100)) == .startTimer(wait: 1, delay: .microseconds(50)))
        #expect(pipeline.timerFired(wait: 1) == .write(["d"]))
        #expect(pipeline.writeFinished(duration: .microseconds(100)) == .yieldTurn)
        #expect(pipeline.turnReturned() == .becameIdle)
        #expect(pipeline.timerFired(wait: 1) == .none)
    }

    @Test func afterIdlingTheFirstBatchIsWrittenAtOnceWhateverTheLastGroupWas() {
        var pipeline = Self.writingAGroupOfTwo(firstWriteTook: .microseconds(100))
        #expect(pipeline.writeFinished(duration: .microseconds(100)) == .startTimer(wait: 1, delay: .microseconds(50)))
        #expect(pipeline.timerFired(wait: 1) == .becameIdle)
        #expect(pipeline.enqueue("d") == .write(["d"]))
    }

    @Test func withoutGroupingEachWriteCarriesOneBatchInOrder() {
        var pipeline = Pipeline(groupsBatches: false)
        #expect(pipeline.enqueue("a") == .write(["a"]))
        #expect(pipeline.enqueue("b") == .none)
        #expect(pipeline.enqueue("c") == .none)
        #expect(pipeline.writeFinished(duration: .milliseconds(1)) == .write(["b"]))
        #expect(pipeline.writeFinished(duration: .milliseconds(1)) == .write(["c"]))
        #expect(pipeline.writeFinished(duration: .milliseconds(1)) == .becameIdle)
        #expect(pipeline.isDrained)
    }

    @Test func holdingLetsTheWriteInFlightFinishAndStartsNothingUntilReleased() {
        var pipeline = Pipeline(groupsBatches: true)
        _ = pipeline.enqueue("a")
        #expect(pipeline.hold() == .none)
        #expect(pipeline.enqueue("b") == .none)
        #expect(pipeline.writeFinished(duration: .microseconds(100)) == .becameIdle)
        #expect(!pipeline.isRunning)
        #expect(!pipeline.isDrained)
        #expect(pipeline.enqueue("c") == .none)
        #expect(pipeline.release() == .write(["b", "c"]))
    }

    @Test func holdingEndsAWaitForLatecomersAtOnce() {
        var pipeline = Self.writingAGroupOfTwo(firstWriteTook: .microseconds(100))
        _ = pipeline.enqueue("d")
        _ = pipeline.writeFinished(duration: .microseconds(100))
        #expect(pipeline.hold() == .becameIdle)
        #expect(pipeline.timerFired(wait: 1) == .none)
        #expect(pipeline.release() == .write(["d"]))
    }

    @Test func releasingAnEmptyHeldPipelineDoesNothing() {
        var pipeline = Pipeline(groupsBatches: true)
        #expect(pipeline.hold() == .none)
        #expect(pipeline.release() == .none)
        #expect(pipeline.isDrained)
    }
}
