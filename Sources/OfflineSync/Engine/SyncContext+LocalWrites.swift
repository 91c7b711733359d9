#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SyncContext {
    /// Inserts `item` locally and queues an insert; generates an upper-case UUID id when `id` is missing or null.
    func insert(_ item: JSONObject, table: String) async throws -> JSONObject {
        try Self.validateTable(table)
        var item = item
        let id: String
        switch item["id"] {
        case nil, .null?:
            id = UUID().uuidString.uppercased()
            item["id"] = .string(id)
        default:
            id = try Self.itemID(of: item, table: table)
        }
        try Self.validateContent(item, table: table)
        try await holding(writeGate) {
            if let pending = try await latestOperation(table: table, itemId: id) {
                throw SyncError.operationNotAllowed(table: table, id: id, pending: pending.kind, requested: .insert)
            }
            if try await dataSource.read(table: table, id: id) != nil {
                throw SyncError.duplicateInsert(table: table, id: id)
            }
            try await recordLocalWrite(.insert, table: table, id: id, itemChange: .upsert(table: table, items: [item]),
                                       snapshot: nil)
        }
        return item
    }

    /// Replaces `item` locally (creating it when absent) and queues or collapses an update.
    func update(_ item: JSONObject, table: String) async throws -> JSONObject {
        try Self.validateTable(table)
        let id = try Self.itemID(of: item, table: table)
        try Self.validateContent(item, table: table)
        return try await holding(writeGate) {
            let stored = try await rebasedOnOwnPush(item, table: table, id: id)
            try await recordLocalWrite(.update, table: table, id: id, itemChange: .upsert(table: table, items: [stored]),
                                       snapshot: nil)
            return stored
        }
    }

    /// Deletes the item locally and queues or collapses a delete carrying `item` as its snapshot.
    func delete(_ item: JSONObject, table: String) async throws {
        try Self.validateTable(table)
        let id = try Self.itemID(of: item, table: table)
        try await holding(writeGate) {
            let snapshot = try await rebasedOnOwnPush(item, table: table, id: id)
            try await recordLocalWrite(.delete, table: table, id: id, itemChange: .delete(table: table, ids: [id]),
                                       snapshot: snapshot)
        }
    }

    /// `item` with the local item's version when the version it carries was replaced by this device's own push
    /// (``OwnVersionHistory``): the caller read the item before that push landed. Call while holding the write gate.
    private func rebasedOnOwnPush(_ item: JSONObject, table: String, id: String) async throws -> JSONObject {
        guard let replacement = ownVersions.replacement(for: SystemProperties.version(of: item), table: table, itemId: id),
              SystemProperties.version(of: try await dataSource.read(table: table, id: id)) == replacement
        else { return item }
        var item = item
        item["version"] = .string(replacement)
        return item
    }

    /// Collapses `action` against the item's latest operation and applies the item change with the queue
    /// change in one `apply`. Call while holding the write gate.
    private func recordLocalWrite(_ action: TableOperation.Kind, table: String, id: String, itemChange: StoreChange,
                                  snapshot: JSONObject?) async throws {
        let latest = try await latestOperation(table: table, itemId: id)
        let decision = OperationCollapse.decide(pending: latest?.kind, attempted: latest?.attempted ?? false,
                                                inFlight: latest.map { inFlight.contains($0.id) } ?? false, action: action)
        var changes = [itemChange]
        var added: TableOperation?, removed: TableOperation?
        switch (decision, latest) {
        case (.notAllowed, let latest?):
            throw SyncError.operationNotAllowed(table: table, id: id, pending: latest.kind, requested: action)
        case (.keep, var operation?):
            operation.revision += 1
            changes += [queue.saving(operation), .delete(table: EngineTables.errors, ids: [EngineTables.rowID(forOperation: operation.id)])]
        case (.remove, let operation?):
            changes += queue.removing(operation.id)
            removed = operation
        case (.toDelete, var operation?):
            operation.kind = .delete
            operation.item = snapshot
            operation.revision += 1
            changes += [queue.saving(operation), .delete(table: EngineTables.errors, ids: [EngineTables.rowID(forOperation: operation.id)])]
        default:
            let opId = try await allocateOperationId()
            let operation = TableOperation(id: opId, kind: action, table: table, itemId: id,
                                           item: action == .delete ? snapshot : nil)
            changes += [queue.saving(operation), queue.advancingCounter(to: opId)]
            added = operation
        }
        try await dataSource.apply(changes)
        if let added {
            nextOperationId = added.id + 1
            operationIndex?.insert(added)
        }
        if let removed { operationIndex?.remove(removed) }
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
            try TableSet.validate([.upsert(table: table, items: [item])])
        } catch {
            throw SyncError.invalidItem(table: table, reason: error.description)
        }
    }
}
