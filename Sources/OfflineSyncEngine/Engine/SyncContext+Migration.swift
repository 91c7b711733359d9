import OfflineSyncCore
import OfflineSyncStore
extension SyncContext {
    /// The version the store's items were last migrated to (0 for a store never migrated). ``erase()`` keeps it:
    /// it says what shape new items have, whoever's they are.
    /// - Throws: ``SyncError/corruptRecord(table:id:reason:)`` when the stored version is not a whole number.
    public func migrationVersion() async throws -> Int {
        try await MigrationVersionStore.version(in: dataSource)
    }

    /// Applies the migrations newer than ``migrationVersion()`` in ascending order, all in one atomic step, or none.
    ///
    /// Call it when the app starts, before other calls, with every migration the app knows. Each migration runs on
    /// every item of its tables, those with pending operations included (a pending insert or update is then pushed
    /// with the new content). What a transform leaves out of the system properties (`version`, `createdAt`,
    /// `updatedAt`, `deleted`) is kept from the item it was given, for items and the engine's copies alike, so the
    /// next write still carries its `If-Match`. The engine's own copies follow: a queued delete's snapshot, an
    /// operation's base, and
    /// what an attempt of an operation sent (its migrated form is kept beside the original, so that a server row holding either still
    /// shows that the attempt landed when its answer was lost). An item the migration removes loses its pending
    /// insert or update too; a queued delete stays. The call waits for a push or pull in progress to end.
    /// - Throws: ``SyncError/invalidMigrations(reason:)`` for a bad list;
    ///   ``SyncError/storeFromNewerApp(storeVersion:knownVersion:)`` when a newer app migrated the store further
    ///   than any of `migrations`; ``SyncError/migrationFailed(version:table:itemId:reason:)`` when a transform
    ///   throws or returns an item it may not. Items, queue and version are then exactly as before (nothing was
    ///   written).
    public func migrate(_ migrations: [Migration]) async throws {
        try await holding(syncGate) {
            try await transaction { transaction in
                let plan = try MigrationPlan(migrations, storedVersion: try await migrationVersion())
                guard let target = plan.targetVersion else { return }
                var changes: [StoreChange] = []
                for table in plan.tables.sorted() {
                    changes += try await migrating(table, with: plan)
                }
                changes.append(MigrationVersionStore.saving(target))
                transaction.stage(changes)
                for table in plan.tables { mirror.ownVersions.forgetAll(table: table) }
            }
        }
    }

    /// The changes that migrate the items of `table`, their queued operations and their operation errors.
    private func migrating(_ table: String, with plan: MigrationPlan) async throws -> [StoreChange] {
        var upserts: [JSONObject] = []
        var removedIds: [String] = []
        for item in try await dataSource.read(Query(table: table)).items {
            if let migrated = try plan.migrated(item, table: table) {
                if migrated != item { upserts.append(migrated) }
            } else {
                removedIds.append(item["id"]?.stringValue ?? "")
            }
        }
        var changes: [StoreChange] = []
        if !upserts.isEmpty { changes.append(.upsert(table: table, items: upserts)) }
        if !removedIds.isEmpty { changes.append(.delete(table: table, ids: removedIds)) }
        let removedKeys = Set(removedIds.map(ItemID.key))
        var droppedOperations = Set<Int64>()
        for operation in try await queue.operations(table: table) {
            if operation.kind != .delete, removedKeys.contains(ItemID.key(operation.itemId)) {
                changes += queue.removing(operation.id)
                droppedOperations.insert(operation.id)
                continue
            }
            let migrated = try plan.migrated(operation)
            if migrated != operation { changes.append(queue.saving(migrated)) }
        }
        let errorRows = try await dataSource.read(Query(table: EngineTables.errors, filter: Field("table") == .string(table))).items
        for var row in errorRows {
            guard let id = row["opId"]?.intValue, !droppedOperations.contains(id), let item = row["item"]?.objectValue else { continue }
            let migrated = plan.migratedCopy(item, table: table)
            guard migrated != item else { continue }
            row["item"] = .object(migrated)
            changes.append(.upsert(table: EngineTables.errors, items: [row]))
        }
        return changes
    }
}
