import Testing
@testable import OfflineSyncEngine

/// The schedule's handling of a server's hints and of suspension, as a pure value with exact times.
struct SyncScheduleHintTests {
    private func idle() -> SyncSchedule { SyncScheduleTests.idle() }

    @Test func aBurstOfHintsIsOnePullAfterTheHintDelay() {
        var schedule = idle()
        for tenth in 0..<10 { schedule.remoteChanged(["A"], at: .milliseconds(100 * tenth)) }
        schedule.remoteChanged(["B"], at: .milliseconds(950))
        #expect(schedule.action(at: .milliseconds(990)) == .wait(until: .seconds(1)))
        #expect(schedule.action(at: .seconds(1)) == .pull(["A", "B"]))
        #expect(schedule.takeHintedTables() == ["A", "B"])
        schedule.syncEnded(.succeeded, at: .seconds(2), pulled: ["A", "B"])
        // The pull changed no timer: the interval's sync is still due at 60 s.
        #expect(schedule.action(at: .seconds(2)) == .wait(until: .seconds(60)))
    }

    @Test func hintsDuringAPullCostOneMorePullAfterIt() {
        var schedule = idle()
        schedule.remoteChanged(["A"], at: .zero)
        _ = schedule.takeHintedTables()
        for tenth in 0..<10 { schedule.remoteChanged(["A"], at: .milliseconds(100 * tenth)) }
        #expect(schedule.action(at: .seconds(5)) == .waitForEvent)
        schedule.syncEnded(.succeeded, at: .seconds(5), pulled: ["A"])
        #expect(schedule.action(at: .seconds(5)) == .pull(["A"]))
    }

    @Test func aSyncTakesTheHintsBeforeIt() {
        var schedule = idle()
        schedule.remoteChanged(["A"], at: .seconds(59))
        #expect(schedule.action(at: .seconds(60)) == .sync)
        schedule.syncStarted()
        schedule.syncEnded(.succeeded, at: .seconds(61))
        #expect(schedule.hintedTables.isEmpty)
        #expect(schedule.action(at: .seconds(62)) == .wait(until: .seconds(121)))
    }

    @Test func hintsWaitForTheSyncThatEndsABackoff() {
        var schedule = idle()
        schedule.syncRequested(at: .seconds(1))
        schedule.syncStarted()
        schedule.syncEnded(.failed, at: .seconds(1))
        schedule.remoteChanged(["A"], at: .seconds(2))
        #expect(schedule.action(at: .seconds(3)) == .wait(until: .seconds(6)))
        #expect(schedule.action(at: .seconds(6)) == .sync)
    }

    @Test func nothingStartsWhileSuspendedAndWhatWasDueRunsOnResume() {
        var schedule = idle()
        schedule.suspend()
        schedule.localWrite(at: .seconds(1))
        schedule.remoteChanged(["A"], at: .seconds(1))
        #expect(schedule.action(at: .seconds(100)) == .waitForEvent)
        schedule.resume()
        #expect(schedule.action(at: .seconds(100)) == .sync)
    }

    @Test func aSyncThatSuspendingCancelledIsDueAgain() {
        var schedule = idle()
        schedule.localWrite(at: .seconds(1))
        #expect(schedule.action(at: .seconds(3)) == .sync)
        schedule.syncStarted()
        schedule.suspend()
        schedule.syncEnded(.cancelled, at: .seconds(4))
        #expect(schedule.action(at: .seconds(4)) == .waitForEvent)
        schedule.resume()
        #expect(schedule.action(at: .seconds(4)) == .sync)
    }

    @Test func aPullThatSuspendingCancelledIsDueAgain() {
        var schedule = idle()
        schedule.remoteChanged(["A"], at: .seconds(1))
        let tables = schedule.takeHintedTables()
        schedule.suspend()
        schedule.syncEnded(.cancelled, at: .seconds(3), pulled: tables)
        schedule.resume()
        #expect(schedule.action(at: .seconds(3)) == .pull(["A"]))
    }
}
