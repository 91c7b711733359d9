/// The ids of the queued operations of each item, kept in memory by the context so that a local write or a
/// push step finds an item's operations without scanning `__operations`.
///
/// The store stays the source of truth: the index is loaded from it on first use and changed only after an
/// `apply` that changed `__operations` succeeded, under the write gate. Every writer of `__operations` is the
/// context itself, so use one `SyncContext` per data source.
struct OperationIndex: Sendable {
    private var idsByItem: [ItemKey: [Int64]] = [:]
    /// How many operations are indexed: the queue's length.
    private(set) var count = 0

    /// Indexes `operations`.
    init(_ operations: [TableOperation]) {
        for operation in operations.sorted(by: { $0.id < $1.id }) { insert(operation) }
    }

    /// The operation ids of one item (case-insensitive id), ascending: the last is the latest.
    func ids(table: String, itemId: String) -> [Int64] {
        idsByItem[ItemKey(table: table, itemId: itemId)] ?? []
    }

    /// Records a new operation (ids only grow, so it goes last).
    mutating func insert(_ operation: TableOperation) {
        idsByItem[ItemKey(table: operation.table, itemId: operation.itemId), default: []].append(operation.id)
        count += 1
    }

    /// Forgets an operation.
    mutating func remove(_ operation: TableOperation) {
        let key = ItemKey(table: operation.table, itemId: operation.itemId)
        guard var ids = idsByItem[key], let index = ids.firstIndex(of: operation.id) else { return }
        ids.remove(at: index)
        count -= 1
        idsByItem[key] = ids.isEmpty ? nil : ids
    }

    /// Forgets every operation of `table`.
    mutating func removeAll(table: String) {
        idsByItem = idsByItem.filter { $0.key.table != table }
        count = idsByItem.values.reduce(0) { $0 + $1.count }
    }
}
