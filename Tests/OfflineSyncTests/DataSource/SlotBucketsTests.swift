import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// The item table's hash table: slots found by hash through collisions, and removal that keeps every other slot
/// findable (buckets moved back, no tombstones).
struct SlotBucketsTests {
    /// `slots` (slot number: hash) in a table of 16 buckets.
    private static func table(_ slots: [(Int32, UInt32)]) -> SlotBuckets {
        var buckets = SlotBuckets()
        buckets.reset(capacity: 16)
        for (slot, hash) in slots { buckets.insert(slot, hash: hash) }
        return buckets
    }

    private static func finds(_ buckets: SlotBuckets, _ slot: Int32, hash: UInt32) -> Bool {
        buckets.probe(hash: hash) { $0 == slot } == slot
    }

    @Test func slotsWithTheSameHomeAreAllFound() {
        // 3, 19 and 35 share home bucket 3; 4 lands after them.
        let slots: [(Int32, UInt32)] = [(0, 3), (1, 19), (2, 35), (3, 4)]
        let buckets = Self.table(slots)
        for (slot, hash) in slots { #expect(Self.finds(buckets, slot, hash: hash)) }
        #expect(buckets.probe(hash: 51) { _ in true } == nil, "a hash no slot has finds nothing")
    }

    @Test func removingASlotKeepsTheRestOfItsRunFindable() {
        let slots: [(Int32, UInt32)] = [(0, 3), (1, 19), (2, 4), (3, 35), (4, 15), (5, 31)]
        for removed in slots {
            var buckets = Self.table(slots)
            buckets.remove(removed.0, hash: removed.1)
            #expect(!Self.finds(buckets, removed.0, hash: removed.1))
            for (slot, hash) in slots where slot != removed.0 { #expect(Self.finds(buckets, slot, hash: hash)) }
        }
    }

    @Test func growthKeepsTheTableAtMostThreeQuartersFull() {
        let buckets = Self.table([])
        #expect(!buckets.needsGrowth(toHold: 10))
        #expect(buckets.needsGrowth(toHold: 12))
        #expect(buckets.capacity(toHold: 100) == 256)
    }
}
