import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// A batch remembers when its entries are in order, so that sorting it again costs nothing; what it remembers must
/// never let unsorted entries reach an index.
struct IndexEntryBatchTests {
    private static func slotsInOrder(_ batch: IndexEntryBatch) -> [Int32] {
        batch.bytes.withUnsafeBytes { raw in
            batch.entries.map { OrderedKey.slot(endingAt: SortedIndexEntries.view(raw, $0)) }
        }
    }

    /// Entries of `values` at positions 0, 1, 2, … (as `AddedIndexEntries` builds them), sorted.
    private static func built(_ values: [Int]) -> IndexEntryBatch {
        var batch = IndexEntryBatch()
        for (position, value) in values.enumerated() { batch.append(["v": .int(Int64(value))], fields: ["v"], slot: Int32(position)) }
        batch.sort()
        return batch
    }

    @Test func slotsThatRiseWithThePositionsKeepTheOrder() {
        let batch = Self.built([5, 1, 5, 3, 1])
        let replaced = batch.replacingPositions(with: [10, 11, 12, 13, 14])
        #expect(replaced.isSorted)
        #expect(Self.slotsInOrder(replaced) == [11, 14, 13, 10, 12])
    }

    @Test func slotsThatFallAreSortedAgainAmongEqualValues() {
        // Reused slots: the items of equal values (positions 0, 2, 4) get slots 9, 4 and 7, and position 3 none.
        let batch = Self.built([2, 8, 2, 5, 2])
        let replaced = batch.replacingPositions(with: [9, 1, 4, nil, 7])
        #expect(Self.slotsInOrder(replaced) == [4, 7, 9, 1])
    }

    @Test func appendingAfterASortForgetsTheOrderAndSortingRestoresIt() {
        var batch = Self.built([3, 1])
        #expect(batch.isSorted)
        batch.append(["v": 0], fields: ["v"], slot: 7)
        #expect(!batch.isSorted)
        var other = Self.built([4])
        other.append(contentsOf: batch)
        #expect(!other.isSorted)
        other.sort()
        #expect(Self.slotsInOrder(other) == [7, 1, 0, 0])
        var empty = IndexEntryBatch()
        empty.append(contentsOf: Self.built([2, 1]))
        #expect(empty.isSorted, "a sorted batch appended to an empty one stays sorted")
    }
}
