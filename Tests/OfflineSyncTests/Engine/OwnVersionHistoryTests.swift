import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

struct OwnVersionHistoryTests {
    @Test func aVersionReplacedByOwnPushesLeadsToTheLatestOne() {
        var history = OwnVersionHistory()
        history.record(table: "T", itemId: "a", replaced: "v1", by: "v2")
        history.record(table: "T", itemId: "A", replaced: "v2", by: "v3")
        #expect(history.replacement(for: "v1", table: "T", itemId: "a") == "v3")
        #expect(history.replacement(for: "v2", table: "T", itemId: "a") == "v3")
        #expect(history.replacement(for: "v3", table: "T", itemId: "a") == nil)
        #expect(history.replacement(for: "v1", table: "Other", itemId: "a") == nil)
    }

    @Test func aChangeNotMadeByThisDeviceBreaksTheChain() {
        var history = OwnVersionHistory()
        history.record(table: "T", itemId: "a", replaced: "v1", by: "v2")
        history.record(table: "T", itemId: "a", replaced: "v5", by: "v6")
        #expect(history.replacement(for: "v1", table: "T", itemId: "a") == nil)
        #expect(history.replacement(for: "v5", table: "T", itemId: "a") == "v6")
    }

    @Test func aPulledRowOfAnotherWriterIsForgottenAndTheDevicesOwnRowIsNot() {
        var history = OwnVersionHistory()
        history.record(table: "T", itemId: "a", replaced: "v1", by: "v2")
        history.observe("v2", table: "T", itemId: "a")
        #expect(history.replacement(for: "v1", table: "T", itemId: "a") == "v2")
        history.observe("v3", table: "T", itemId: "a")
        #expect(history.replacement(for: "v1", table: "T", itemId: "a") == nil)
    }

    @Test func forgettingATableLeavesTheOthers() {
        var history = OwnVersionHistory()
        history.record(table: "T", itemId: "a", replaced: "v1", by: "v2")
        history.record(table: "U", itemId: "a", replaced: "v1", by: "v2")
        history.forgetAll(table: "T")
        #expect(history.replacement(for: "v1", table: "T", itemId: "a") == nil)
        #expect(history.replacement(for: "v1", table: "U", itemId: "a") == "v2")
    }

    @Test func itStaysBoundedByForgettingEverything() {
        var history = OwnVersionHistory()
        for index in 0...OwnVersionHistory.maximumItems {
            history.record(table: "T", itemId: "i\(index)", replaced: "v1", by: "v2")
        }
        #expect(history.replacement(for: "v1", table: "T", itemId: "i0") == nil)
        #expect(history.replacement(for: "v1", table: "T", itemId: "i\(OwnVersionHistory.maximumItems)") == "v2")
    }

    @Test func changesNotedInATransactionCountOnlyOnceApplied() {
        var history = OwnVersionHistory()
        history.beginStaging()
        history.record(table: "T", itemId: "a", replaced: "v1", by: "v2")
        #expect(history.replacement(for: "v1", table: "T", itemId: "a") == nil, "not before the commit")
        let noted = history.takeStaged()
        history.record(table: "T", itemId: "b", replaced: "v1", by: "v2")
        #expect(history.replacement(for: "v1", table: "T", itemId: "b") == "v2", "outside a transaction: at once")
        history.apply(noted)
        #expect(history.replacement(for: "v1", table: "T", itemId: "a") == "v2")
        history.beginStaging()
        history.forgetEverything()
        _ = history.takeStaged()   // a refused commit: dropped
        #expect(history.replacement(for: "v1", table: "T", itemId: "a") == "v2")
    }
}
