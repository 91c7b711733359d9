import OfflineSyncCore
import OfflineSyncStore
extension SyncContext {
    /// Deletes local items of `table`; see ``SyncTable/purge(_:force:)``.
    func purge(table: String, query: Query?, force: Bool) async throws {
        try Self.validateTable(table)
        if force, query != nil { throw SyncError.forcePurgeWithQuery(table: table) }
        if let query, query.table != table {
            throw SyncError.queryTableMismatch(table: table, queryTable: query.table)
        }
        try await holding(syncGate) {
            try Task.checkCancellation()
            try await transaction { transaction in
                let operations = try await queue.operations(table: table)
                if force {
                    if let busy = operations.first(where: { shared.inFlight.contains($0.id) }) {
                        throw SyncError.operationInFlight(operationId: busy.id, table: table, itemId: busy.itemId)
                    }
                    let ids = operations.map(\.id)
                    transaction.stage(queue.removing(ids) + [
                        DeltaTokenStore.removingAll(table: table),
                        RefetchStore.removingAll(table: table),
                        .deleteAll(table: table, matching: nil),
                    ])
                    mirror.ownVersions.forgetAll(table: table)
                    return
                }
                guard operations.isEmpty else {
                    throw SyncError.purgeBlocked(table: table, pendingOperations: operations.count)
                }
                mirror.ownVersions.forgetAll(table: table)
                guard let removal = try await purgeRemoval(table: table, query: query) else { return }
                // Every incremental query of the table may have brought a purged row in: its token would keep the
                // next pull from bringing the row back, so it goes with the rows (tokens keep only a digest of their
                // filter, so no token can be shown to exclude them). The items waiting to be fetched again by id
                // (RefetchStore) go too: the next pull of each query brings what the server holds.
                transaction.stage([removal, DeltaTokenStore.removingAll(table: table), RefetchStore.removingAll(table: table)])
            }
        }
    }

    /// The change that deletes the local items `query` selects, nil when it selects none.
    private func purgeRemoval(table: String, query: Query?) async throws -> StoreChange? {
        guard let query, query.skip != nil || query.top != nil || !query.orderBy.isEmpty else {
            let count = Query(table: table, filter: query?.filter, top: 0, includeTotalCount: true)
            guard try await dataSource.read(count).totalCount ?? 0 > 0 else { return nil }
            return .deleteAll(table: table, matching: query?.filter)
        }
        var selection = query
        selection.select = ["id"]
        selection.includeTotalCount = false
        let ids = try await dataSource.read(selection).items.compactMap { $0["id"]?.stringValue }
        return ids.isEmpty ? nil : .delete(table: table, ids: ids)
    }
}
