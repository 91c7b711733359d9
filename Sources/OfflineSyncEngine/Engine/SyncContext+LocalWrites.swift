import OfflineSyncCore
import OfflineSyncStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SyncContext {
    /// Inserts `item` locally and queues an insert; generates an upper-case UUID id when `id` is missing or null.
    func insert(_ item: JSONObject, table: String) async throws -> JSONObject {
        let item = try Self.insertable(item, table: table)
        return try await writeOne { try await stage(.insert, table: table, item: item, staged: &$0, in: &$1) }
    }

    /// Replaces `item` locally (creating it when absent) and queues or collapses an update.
    /// - Parameter model: for an item a typed model encoded, how to complete it from the local item as the write step
    ///   reads it (``ModelFields``: system properties, fields the model does not know, fields it cleared), never from
    ///   an earlier read that a pull may have made stale; nil replaces the item as given.
    func update(_ item: JSONObject, table: String, model: ModelFields? = nil) async throws -> JSONObject {
        try Self.validateTable(table)
        _ = try Self.itemID(of: item, table: table)
        try Self.validateContent(item, table: table)
        return try await writeOne {
            try await stage(.update, table: table, item: item, model: model, staged: &$0, in: &$1)
        }
    }

    /// Deletes the item locally and queues or collapses a delete carrying `item` as its snapshot.
    /// - Parameter model: as for ``update(_:table:model:)``.
    func delete(_ item: JSONObject, table: String, model: ModelFields? = nil) async throws {
        try Self.validateTable(table)
        _ = try Self.itemID(of: item, table: table)
        _ = try await writeOne {
            try await stage(.delete, table: table, item: item, model: model, staged: &$0, in: &$1)
        }
    }

    /// Stages one write and applies it, in one transaction.
    private func writeOne(_ write: (inout StagedLocalWrites, inout StoreTransaction) async throws -> JSONObject) async throws -> JSONObject {
        let written = try await transaction { transaction in
            var staged = StagedLocalWrites()
            return try await write(&staged, &transaction)
        }
        localWriteCommitted()
        return written
    }

    /// `item` ready to insert into `table`: with a generated upper-case UUID id when its `id` is missing or null,
    /// checked against the id rules and the values a store can hold.
    nonisolated static func insertable(_ item: JSONObject, table: String) throws(SyncError) -> JSONObject {
        try validateTable(table)
        var item = item
        switch item["id"] {
        case nil, .null?: item["id"] = .string(UUID().uuidString.uppercased())
        default: _ = try itemID(of: item, table: table)
        }
        try validateContent(item, table: table)
        return item
    }

    /// Stages one local write of an item whose table, id and content are valid in `transaction`: the item change and
    /// the queue change (``OperationCollapse``), as the writes staged before it left the store (it reads the local item
    /// through `transaction`, which sees them, and each item's latest operation from `staged`).
    /// Returns the item as stored (for a delete, the snapshot).
    /// - Parameter model: for an item a typed model encoded, how to complete it from the local item (``ModelFields``).
    func stage(_ action: TableOperation.Kind, table: String, item: JSONObject, model: ModelFields? = nil,
               staged: inout StagedLocalWrites, in transaction: inout StoreTransaction) async throws -> JSONObject {
        let id = try Self.itemID(of: item, table: table)
        let key = ItemKey(table: table, itemId: id)
        let local = try await transaction.read(table: table, id: id)
        let latest = try await stagedLatestOperation(key, table: table, id: id, in: staged)
        var item = item
        if let model, let local { item = model.completing(item, from: local) }
        if action == .insert {
            if let latest { throw SyncError.operationNotAllowed(table: table, id: id, pending: latest.kind, requested: .insert) }
            if local != nil { throw SyncError.duplicateInsert(table: table, id: id) }
        } else if let replacement = mirror.ownVersions.replacement(for: SystemProperties.version(of: item), table: table, itemId: id),
                  SystemProperties.version(of: local) == replacement {
            // The caller read the item before this device's own push replaced its version.
            item["version"] = .string(replacement)
        }
        let decision = OperationCollapse.decide(pending: latest?.kind, attempted: latest?.attempted ?? false,
                                                inFlight: latest.map { shared.inFlight.contains($0.id) } ?? false, action: action)
        let errorRow = { (operation: TableOperation) in OperationErrorStore.removing(operations: [operation.id]) }
        var queueChanges: [StoreChange]
        var newLatest: TableOperation?
        switch (decision, latest) {
        case (.notAllowed, let latest?):
            throw SyncError.operationNotAllowed(table: table, id: id, pending: latest.kind, requested: action)
        case (.keep, var operation?):
            operation.revision += 1
            queueChanges = [queue.saving(operation), errorRow(operation)]
            newLatest = operation
        case (.remove, let operation?):
            queueChanges = queue.removing(operation.id)
            newLatest = nil
        case (.toDelete, var operation?):
            operation.kind = .delete
            operation.item = item
            operation.revision += 1
            queueChanges = [queue.saving(operation), errorRow(operation)]
            newLatest = operation
        default:
            let opId: Int64
            if let next = staged.nextOperationId { opId = next } else { opId = try await allocateOperationId() }
            // The base: with no operation pending, the local item is the server's copy as last pulled or answered;
            // behind an operation in flight, that operation's base until its answer gives the new one.
            let base = action == .insert ? nil : latest.map(\.base) ?? local
            let operation = TableOperation(id: opId, kind: action, table: table, itemId: id,
                                           item: action == .delete ? item : nil, base: base)
            queueChanges = [queue.saving(operation), queue.advancingCounter(to: opId)]
            staged.nextOperationId = opId + 1
            newLatest = operation
        }
        let itemChange: StoreChange = action == .delete ? .delete(table: table, ids: [id]) : .upsert(table: table, items: [item])
        transaction.stage([itemChange] + queueChanges)
        staged.latestOperations[key] = .some(newLatest)
        return item
    }

    private func stagedLatestOperation(_ key: ItemKey, table: String, id: String,
                                       in staged: StagedLocalWrites) async throws -> TableOperation? {
        if let operation = staged.latestOperations[key] { return operation }
        return try await latestOperation(table: table, itemId: id)
    }

    /// The item's string id, checked against the id rules.
    nonisolated static func itemID(of item: JSONObject, table: String) throws(SyncError) -> String {
        switch item["id"] {
        case nil, .null?:
            throw SyncError.missingID(table: table)
        case .string(let id)?:
            if let reason = ItemID.violation(in: id) { throw SyncError.invalidID(table: table, id: .string(id), reason: reason) }
            return id
        case let other?:
            throw SyncError.invalidID(table: table, id: other, reason: "it is not a string")
        }
    }

    /// Rejects values a store cannot hold (NaN, infinity), before anything is written.
    nonisolated static func validateContent(_ item: JSONObject, table: String) throws(SyncError) {
        do {
            try StoreChange.validate([.upsert(table: table, items: [item])])
        } catch {
            throw SyncError.invalidItem(table: table, reason: error.description)
        }
    }
}
