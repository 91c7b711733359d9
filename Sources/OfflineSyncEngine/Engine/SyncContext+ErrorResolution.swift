public import OfflineSyncCore
import OfflineSyncStore
extension SyncContext {
    /// Drops the failed operation and the local change: the server's state wins.
    ///
    /// When the error carries the server's copy (``TableOperationError/serverItem``, as a 409 or 412 does), that copy
    /// replaces the local item at once (a soft-deleted copy, or none, leaves the item deleted locally). Otherwise the
    /// local item is deleted and the next pull of the table fetches the item by id, whatever its delta token, and
    /// stores what the server holds; this record is stored with the resolution, so it survives a restart.
    /// - Throws: ``SyncError/operationNotFound(operationId:table:itemId:)`` when the operation is no longer
    ///   queued, ``SyncError/operationChanged(operationId:table:itemId:)`` when it changed since the error.
    public func cancelAndDiscard(_ error: TableOperationError) async throws {
        try await transaction { transaction in
            let operation = try await currentOperation(for: error)
            transaction.stage(queue.removing(operation.id) + Self.serverState(error.serverItem, of: operation))
            mirror.ownVersions.forget(table: operation.table, itemId: operation.itemId)
        }
    }

    /// Sends the failed operation again at the next push, as it is: clears its error, so that it counts as pending
    /// again rather than failed (``operationErrors()`` no longer lists it); the operation keeps its place in the queue,
    /// its content and its attempts.
    /// - Throws: as ``cancelAndDiscard(_:)``, and ``SyncError/operationInFlight(operationId:table:itemId:)`` while a
    ///   push is sending it.
    public func retry(_ error: TableOperationError) async throws {
        try await transaction { transaction in
            let operation = try await currentOperation(for: error)
            transaction.stage([OperationErrorStore.removing(operations: [operation.id])])
        }
    }

    /// Drops the failed operation and stores `item` locally (typically `error.serverItem`). `createdAt`,
    /// `updatedAt` and `deleted` are removed from the item; `version` is kept.
    /// - Throws: as ``cancelAndDiscard(_:)``, and ``SyncError`` when `item`'s id is not the operation's.
    public func cancelAndUpdate(_ error: TableOperationError, with item: JSONObject) async throws {
        try await transaction { transaction in
            let operation = try await currentOperation(for: error)
            let stored = try Self.resolutionItem(item, for: operation)
            transaction.stage(queue.removing(operation.id) + [.upsert(table: operation.table, items: [stored])])
            mirror.ownVersions.forget(table: operation.table, itemId: operation.itemId)
        }
    }

    /// Keeps the failed operation (same kind and position, sent again by the next push) with `item` as its new
    /// item: stored locally for an insert or update, kept as the snapshot of a delete.
    /// - Throws: as ``cancelAndUpdate(_:with:)``.
    public func keepAndUpdate(_ error: TableOperationError, with item: JSONObject) async throws {
        try await keepAndUpdate(error, with: item, as: error.operation.kind)
    }

    /// Keeps the failed operation at its position but changes its kind (the reference's "modify operation
    /// type"): as a delete, the local item is deleted and `item` becomes the snapshot; as an insert or update,
    /// `item` is stored locally and sent by the next push.
    /// - Throws: as ``cancelAndUpdate(_:with:)``.
    public func keepAndUpdate(_ error: TableOperationError, with item: JSONObject, as kind: TableOperation.Kind) async throws {
        try await transaction { transaction in
            var operation = try await currentOperation(for: error)
            operation.kind = kind
            var changes: [StoreChange] = [OperationErrorStore.removing(operations: [operation.id])]
            var item = item
            if item["id"] == nil || item["id"] == .null { item["id"] = .string(operation.itemId) }
            try Self.checkID(of: item, for: operation)
            try Self.validateContent(item, table: operation.table)
            operation.revision += 1
            // The change now starts from the server's copy the error carried.
            if let serverItem = error.serverItem, !SystemProperties.isDeleted(serverItem), operation.kind != .insert {
                operation.base = serverItem
            }
            if operation.kind == .delete {
                operation.item = item
                changes.append(.delete(table: operation.table, ids: [operation.itemId]))
            } else {
                operation.item = nil
                changes.append(.upsert(table: operation.table, items: [item]))
            }
            changes.append(queue.saving(operation))
            transaction.stage(changes)
            mirror.ownVersions.forget(table: operation.table, itemId: operation.itemId)
        }
    }

    /// Drops a queued operation without pushing it, whether or not a push recorded an error for it: for an
    /// operation that can never succeed, without purging its whole table. With `keepingLocalItem` true the local item
    /// of an insert or update stays as it is (until a pull or a write changes it). Otherwise, and for a delete (whose
    /// local item is gone), the local item goes and the server's state wins: the next pull of the table fetches the
    /// item by id, whatever its delta token, and stores what the server holds (nothing for an insert that never
    /// reached it). This record is stored with the discard, so it survives a restart.
    /// - Parameters:
    ///   - operation: the operation as ``pendingOperations()`` returned it.
    ///   - keepingLocalItem: whether the local item of an insert or update stays as it is.
    /// - Throws: ``SyncError/operationNotFound(operationId:table:itemId:)`` when it is no longer queued,
    ///   ``SyncError/operationChanged(operationId:table:itemId:)`` when it changed since it was read,
    ///   ``SyncError/operationInFlight(operationId:table:itemId:)`` while a push is sending it.
    public func discard(_ operation: TableOperation, keepingLocalItem: Bool) async throws {
        try await transaction { transaction in
            let current = try await currentOperation(matching: operation)
            var changes = queue.removing(current.id)
            if !keepingLocalItem, current.kind != .delete {
                changes.append(.delete(table: current.table, ids: [current.itemId]))
            }
            // An insert that never left has nothing on the server to fetch.
            if !keepingLocalItem || current.kind == .delete, current.kind != .insert || current.attempted {
                changes.append(RefetchStore.saving(table: current.table, itemId: current.itemId))
            }
            transaction.stage(changes)
            mirror.ownVersions.forget(table: current.table, itemId: current.itemId)
        }
    }

    /// The queued operation the error belongs to, unchanged since the error and not being pushed.
    private func currentOperation(for error: TableOperationError) async throws -> TableOperation {
        try await currentOperation(matching: error.operation)
    }

    /// The queued operation with `recorded`'s id, unchanged since `recorded` was read and not being pushed.
    private func currentOperation(matching recorded: TableOperation) async throws -> TableOperation {
        guard let operation = try await queue.operation(id: recorded.id) else {
            throw SyncError.operationNotFound(operationId: recorded.id, table: recorded.table, itemId: recorded.itemId)
        }
        if shared.inFlight.contains(operation.id) {
            throw SyncError.operationInFlight(operationId: operation.id, table: operation.table, itemId: operation.itemId)
        }
        guard operation.revision == recorded.revision, operation.kind == recorded.kind,
              operation.table == recorded.table, ItemID.key(operation.itemId) == ItemID.key(recorded.itemId) else {
            throw SyncError.operationChanged(operationId: recorded.id, table: recorded.table, itemId: recorded.itemId)
        }
        return operation
    }

    /// The changes that leave the server's state of the operation's item locally: its copy `serverItem` (with the
    /// operation's id when it has none) when it is the item's and can be stored; nothing more than deleting the local
    /// item when that copy is soft-deleted; otherwise deleting it and recording it for the next pull to fetch
    /// (``RefetchStore``).
    private static func serverState(_ serverItem: JSONObject?, of operation: TableOperation) -> [StoreChange] {
        let deletion = StoreChange.delete(table: operation.table, ids: [operation.itemId])
        if var serverItem {
            if serverItem["id"] == nil || serverItem["id"] == .null { serverItem["id"] = .string(operation.itemId) }
            if SystemProperties.isDeleted(serverItem) { return [deletion] }
            let upsert = StoreChange.upsert(table: operation.table, items: [serverItem])
            if (try? checkID(of: serverItem, for: operation)) != nil, (try? StoreChange.validate([upsert])) != nil {
                return [upsert]
            }
        }
        return [deletion, RefetchStore.saving(table: operation.table, itemId: operation.itemId)]
    }

    /// `item` with the operation's id (added when missing) and without `createdAt`, `updatedAt`, `deleted`.
    private static func resolutionItem(_ item: JSONObject, for operation: TableOperation) throws -> JSONObject {
        var item = SystemProperties.removingAllButVersion(from: item)
        if item["id"] == nil || item["id"] == .null { item["id"] = .string(operation.itemId) }
        try checkID(of: item, for: operation)
        try validateContent(item, table: operation.table)
        return item
    }

    /// Throws unless `item`'s id is the failed operation's (compared case-insensitively).
    private static func checkID(of item: JSONObject, for operation: TableOperation) throws {
        let id = try itemID(of: item, table: operation.table)
        guard ItemID.key(id) == ItemID.key(operation.itemId) else {
            throw SyncError.invalidItem(table: operation.table,
                                        reason: "its id \"\(id)\" is not the id \"\(operation.itemId)\" of the failed operation")
        }
    }
}
