import OfflineSyncCore
import OfflineSyncStore
/// What the later local writes of one transaction must know of the queue as the writes staged before them left it:
/// each item's latest operation, and the next operation id. (The local items they read through the transaction,
/// which sees its own staged changes.)
struct StagedLocalWrites: Sendable {
    /// Each item's latest operation after the staged writes; `.some(nil)`: none left.
    var latestOperations: [ItemKey: TableOperation?] = [:]
    /// The next operation id to hand out; nil until the first write that adds an operation.
    var nextOperationId: Int64?
}
