import OfflineSyncCore
import OfflineSyncStore
/// Local writes staged against the store and the queue before they are applied together in one `apply`: the
/// changes, and what later writes of the same batch must see (local items and each item's latest operation, as
/// the writes staged before them left them).
struct StagedLocalWrites: Sendable {
    /// Local items changed by the staged writes; `.some(nil)`: deleted.
    var items: [ItemKey: JSONObject?] = [:]
    /// Each item's latest operation after the staged writes; `.some(nil)`: none left.
    var latestOperations: [ItemKey: TableOperation?] = [:]
    /// The changes to apply, in order.
    var changes: [StoreChange] = []
    /// The next operation id to hand out; nil until the first write that adds an operation.
    var nextOperationId: Int64?
}
