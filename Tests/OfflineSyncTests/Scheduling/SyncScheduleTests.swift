import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// The scheduler's decisions as a pure value, with exact times.
struct SyncScheduleTests {
    static let timing = SyncSchedule.Timing(debounce: .seconds(2), maximumDelay: .seconds(10), interval: .seconds(60),
                                            initialBackoff: .seconds(5), maximumBackoff: .seconds(30),
                                            hintDelay: .seconds(1))

    /// A schedule whose first sync ran at 0 and ended well.
    static func idle() -> SyncSchedule {
        var schedule = SyncSchedule(timing: Self.timing, start: .zero)
        #expect(schedule.action(at: .zero) == .sync)
        schedule.syncStarted()
        schedule.syncEnded(.succeeded, at: .zero)
        return schedule
    }

    @Test func aSyncIsDueAtStartThenAfterTheInterval() {
        let schedule = Self.idle()
        #expect(schedule.action(at: .seconds(1)) == .wait(until: .seconds(60)))
        #expect(schedule.action(at: .seconds(60)) == .sync)
    }

    @Test func writesAreDebouncedButABurstWaitsNoLongerThanTheMaximumDelay() {
        var schedule = Self.idle()
        schedule.localWrite(at: .seconds(1))
        #expect(schedule.action(at: .seconds(1)) == .wait(until: .seconds(3)))
        schedule.localWrite(at: .seconds(2))
        #expect(schedule.action(at: .seconds(3)) == .wait(until: .seconds(4)))
        for second in stride(from: 3, through: 10, by: 1) { schedule.localWrite(at: .seconds(second)) }
        #expect(schedule.action(at: .seconds(10)) == .wait(until: .seconds(11)))
        schedule.localWrite(at: .seconds(11))
        #expect(schedule.action(at: .seconds(11)) == .sync)
    }

    @Test func aWriteDuringASyncMakesTheNextOneDue() {
        var schedule = Self.idle()
        schedule.localWrite(at: .seconds(1))
        schedule.syncStarted()
        #expect(schedule.action(at: .seconds(3)) == .waitForEvent)
        schedule.localWrite(at: .seconds(4))
        schedule.syncEnded(.succeeded, at: .seconds(5))
        #expect(schedule.action(at: .seconds(5)) == .wait(until: .seconds(6)))
    }

    @Test func failuresBackOffDoublingUpToTheMaximumAndASuccessResetsThem() {
        var schedule = Self.idle()
        var now = Duration.seconds(60)
        var waits: [Duration] = []
        for _ in 0..<5 {
            schedule.syncStarted()
            schedule.syncEnded(.failed, at: now)
            guard case .wait(let until) = schedule.action(at: now) else { Issue.record("expected a wait"); return }
            waits.append(until - now)
            schedule.localWrite(at: now)         // a write does not shorten a backoff
            #expect(schedule.action(at: now) == .wait(until: until))
            now = until
        }
        #expect(waits == [.seconds(5), .seconds(10), .seconds(20), .seconds(30), .seconds(30)])
        #expect(schedule.failures == 5)
        schedule.syncStarted()
        schedule.syncEnded(.succeeded, at: now)
        #expect(schedule.failures == 0 && schedule.action(at: now) == .wait(until: now + .seconds(60)))
    }

    @Test func unauthorizedParksUntilASyncIsRequested() {
        var schedule = Self.idle()
        schedule.syncStarted()
        schedule.syncEnded(.unauthorized, at: .seconds(1))
        #expect(schedule.isParked)
        schedule.localWrite(at: .seconds(2))
        #expect(schedule.action(at: .seconds(1000)) == .waitForEvent)
        schedule.syncRequested(at: .seconds(1001))
        #expect(!schedule.isParked && schedule.action(at: .seconds(1001)) == .sync)
    }

    @Test func parkedWithAProviderItAsksForATokenAfterEachBackoff() {
        var schedule = Self.idle()
        schedule.asksForCredentials = true
        schedule.syncStarted()
        schedule.syncEnded(.unauthorized, at: .seconds(1))
        #expect(schedule.action(at: .seconds(2)) == .wait(until: .seconds(6)))
        #expect(schedule.action(at: .seconds(6)) == .askForCredentials)
        schedule.credentialsUnavailable(at: .seconds(6))
        #expect(schedule.action(at: .seconds(6)) == .wait(until: .seconds(16)))
        schedule.syncRequested(at: .seconds(16))
        #expect(schedule.action(at: .seconds(16)) == .sync)
    }

    @Test func aSyncRequestedDuringASyncThatEndsUnauthorizedRunsOnceItEnds() {
        var schedule = Self.idle()
        schedule.syncStarted()
        schedule.syncRequested(at: .seconds(1))     // the user signed in again while the sync ran
        schedule.syncEnded(.unauthorized, at: .seconds(2))
        #expect(!schedule.isParked && schedule.action(at: .seconds(2)) == .sync)
    }

    @Test func aSyncRequestedDuringASyncThatEndsWellOrFailsRunsOnceItEnds() {
        for outcome in [SyncSchedule.Outcome.succeeded, .failed] {
            var schedule = Self.idle()
            schedule.syncStarted()
            schedule.syncRequested(at: .seconds(1))
            schedule.syncEnded(outcome, at: .seconds(2))
            #expect(schedule.action(at: .seconds(2)) == .sync, "after \(outcome)")
            schedule.syncStarted()
            schedule.syncEnded(.succeeded, at: .seconds(3))
            #expect(schedule.action(at: .seconds(3)) == .wait(until: .seconds(63)), "the request is taken once")
        }
    }

    @Test func parkedWithoutAProviderRegainingConnectivitySchedulesNothing() {
        var schedule = Self.idle()
        schedule.syncStarted()
        schedule.syncEnded(.unauthorized, at: .seconds(1))
        schedule.reachability(false, at: .seconds(2))
        schedule.reachability(true, at: .seconds(3))
        #expect(schedule.isParked && schedule.due == nil && schedule.action(at: .seconds(3)) == .waitForEvent)
    }

    @Test func parkedWithAProviderRegainingConnectivityKeepsTheBackoff() {
        var schedule = Self.idle()
        schedule.asksForCredentials = true
        schedule.syncStarted()
        schedule.syncEnded(.unauthorized, at: .seconds(1))
        schedule.reachability(false, at: .seconds(2))
        schedule.reachability(true, at: .seconds(3))
        #expect(schedule.isParked && schedule.action(at: .seconds(3)) == .wait(until: .seconds(6)))
    }

    @Test func nothingRunsOfflineAndRegainingConnectivitySyncsAtOnce() {
        var schedule = Self.idle()
        schedule.reachability(false, at: .seconds(1))
        schedule.localWrite(at: .seconds(2))
        #expect(schedule.action(at: .seconds(100)) == .waitForEvent)
        schedule.reachability(true, at: .seconds(100))
        #expect(schedule.action(at: .seconds(100)) == .sync)
    }

    @Test func noIntervalMeansOnlyWritesAndEventsTriggerASync() {
        var timing = Self.timing
        timing.interval = nil
        var schedule = SyncSchedule(timing: timing, start: .zero)
        schedule.syncStarted()
        schedule.syncEnded(.succeeded, at: .zero)
        #expect(schedule.action(at: .seconds(10_000)) == .waitForEvent)
    }
}
