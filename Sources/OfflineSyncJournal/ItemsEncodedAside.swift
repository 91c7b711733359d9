import OfflineSyncCore
import OfflineSyncStore
import Dispatch

/// The second part of a large upsert's items, checked, packed and written as JSON on a thread of its own while the
/// store's turn does the same for the first part, so that a batch of thousands of items is encoded on two cores.
///
/// It runs on the queue of ``AddedIndexEntries``, after the upsert's index entries, on a thread that is not one of
/// Swift's shared ones (``QueuedWork``), so the store's turn can wait for it without suspending. The first part's
/// problems are reported before the second's, as one pass over the items would.
struct ItemsEncodedAside: Sendable {
    /// Upserts of at least this many items encode their second part aside; below it, handing the work over costs
    /// more than it saves.
    static let minimumItems = 512

    /// Where an upsert of `count` items on a table keeping `indexes` indexes splits: the items before it are encoded
    /// in the store's turn, those from it on aside (`count` itself when the upsert is too small to split). The part
    /// aside runs on the queue that builds the upsert's index entries, after them, so it shrinks as they grow: each
    /// index costs about two fifths of what encoding the items does, and the split evens out the two cores.
    static func split(_ count: Int, indexes: Int) -> Int {
        guard count >= minimumItems else { return count }
        return count * min(5 + 2 * indexes, 9) / 10
    }

    /// The items' JSON texts, separated by commas, and their packed forms in order.
    struct Encoded: Sendable {
        var text: [UInt8]
        var packed: PackedItems
    }

    private let work: QueuedWork<Result<Encoded, DataSourceError>>

    /// Starts encoding `items`, bound for `table`, packing those whose keys are `shape`'s.
    init(items: ArraySlice<JSONObject>, table: String, shape: JSONObjectShape?) {
        work = QueuedWork(on: AddedIndexEntries.queue) {
            var encoded = Encoded(text: [], packed: PackedItems())
            encoded.text.reserveCapacity(items.count * 256)
            do throws(DataSourceError) {
                try StorableItemWriter().writeItems(items, table: table, shape: shape, into: &encoded.text, packing: &encoded.packed)
            } catch {
                return .failure(error)
            }
            return .success(encoded)
        }
    }

    /// Waits until the items are encoded; returns them, or throws the first problem among them.
    func wait() throws(DataSourceError) -> Encoded {
        try work.wait().get()
    }
}
