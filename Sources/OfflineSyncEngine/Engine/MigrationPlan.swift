import OfflineSyncCore
import OfflineSyncStore
/// The migrations a store has not had yet, and what they make of its items and of the queue's copies of them, as
/// pure functions: ``SyncContext/migrate(_:)`` reads, asks this, and applies the result in one `apply`.
struct MigrationPlan {
    /// The migrations to apply, in ascending version order.
    let migrations: [Migration]

    /// The migrations of `all` newer than `storedVersion`, after checking the list.
    /// - Throws: ``SyncError/invalidMigrations(reason:)`` for a version below 1, a version given twice or a table
    ///   name that is invalid or reserved; ``SyncError/storeFromNewerApp(storeVersion:knownVersion:)`` when the store
    ///   is at a version newer than any of `all`.
    init(_ all: [Migration], storedVersion: Int) throws(SyncError) {
        var versions = Set<Int>()
        for migration in all {
            guard migration.version >= 1 else { throw .invalidMigrations(reason: "version \(migration.version) is below 1") }
            guard versions.insert(migration.version).inserted else {
                throw .invalidMigrations(reason: "version \(migration.version) is given twice")
            }
            for table in migration.tables {
                do { try SyncContext.validateTable(table) } catch {
                    throw .invalidMigrations(reason: "migration \(migration.version): \(error.description)")
                }
            }
        }
        let known = versions.max() ?? 0
        if storedVersion > known { throw .storeFromNewerApp(storeVersion: storedVersion, knownVersion: known) }
        migrations = all.filter { $0.version > storedVersion }.sorted { $0.version < $1.version }
    }

    /// The version the store is at once the plan is applied; nil when there is nothing to apply.
    var targetVersion: Int? { migrations.last?.version }

    /// The tables some migration transforms.
    var tables: Set<String> { migrations.reduce(into: []) { $0.formUnion($1.tables) } }

    /// `item` of `table` through every migration of `table` in order; nil when one of them removes it. Each step's
    /// result keeps the step's input `id` and system properties (`version`, `createdAt`, `updatedAt`, `deleted`)
    /// where it lacks them, so that a transform that builds a new item still sends its next write with `If-Match`
    /// (``keepingSystemProperties(of:in:)``).
    /// - Throws: ``SyncError/migrationFailed(version:table:itemId:reason:)`` when a transform throws, changes the
    ///   item's id or returns a value a store cannot hold.
    func migrated(_ item: JSONObject, table: String) throws(SyncError) -> JSONObject? {
        let id = item["id"]?.stringValue ?? ""
        var current = item
        for migration in migrations where migration.tables.contains(table) {
            func failure(_ reason: String) -> SyncError {
                .migrationFailed(version: migration.version, table: table, itemId: id, reason: reason)
            }
            let result: JSONObject?
            do { result = try migration.transform(table, current) } catch { throw failure("the transform threw \(error)") }
            guard var next = result else { return nil }
            switch next["id"] {
            case nil, .null?:
                next["id"] = .string(id)
            case .string(let newId)? where ItemID.key(newId) == ItemID.key(id):
                break
            case let other?:
                throw failure("it changed the id to \(other.jsonString()); a migration keeps every item's id")
            }
            Self.keepingSystemProperties(of: current, in: &next)
            do { try SyncContext.validateContent(next, table: table) } catch { throw failure(error.description) }
            current = next
        }
        return current
    }

    /// Gives `next` each system property of `input` that it does not hold in any casing: a transform sets a system
    /// property by holding it (`null` included), and leaving it out keeps the input's.
    static func keepingSystemProperties(of input: JSONObject, in next: inout JSONObject) {
        let held = Set(next.keys.filter(SystemProperties.isSystemProperty).map { $0.lowercased() })
        for (name, value) in input where SystemProperties.isSystemProperty(name) && !held.contains(name.lowercased()) {
            next[name] = value
        }
    }

    /// `item` migrated, or `item` itself when a migration removes or rejects it: for the copies the engine keeps
    /// beside the local item (what an attempt sent, an error's item), which must not block a migration.
    func migratedCopy(_ item: JSONObject, table: String) -> JSONObject {
        ((try? migrated(item, table: table)) ?? nil) ?? item
    }

    /// `operation` with its copies of the item migrated: a delete's snapshot, its base, and each content an attempt sent with
    /// its migrated form after it (both kept, so that a server row holding either shows the attempt landed).
    /// - Throws: as ``migrated(_:table:)`` for a delete's snapshot.
    func migrated(_ operation: TableOperation) throws(SyncError) -> TableOperation {
        var result = operation
        if operation.kind == .delete, let snapshot = operation.item {
            result.item = try migrated(snapshot, table: operation.table) ?? snapshot
            // The snapshot is what a server row must match for the delete's version to be ours: keep its old form.
            if operation.attempted, result.item != snapshot {
                result.sentContents.append(TableOperation.content(of: snapshot))
            }
        }
        if let base = operation.base { result.base = migratedCopy(base, table: operation.table) }
        var contents: [JSONObject] = []
        for content in result.sentContents {
            contents.append(content)
            let new = TableOperation.content(of: migratedCopy(content, table: operation.table))
            if !SystemProperties.sameContent(new, content) { contents.append(new) }
        }
        result.sentContents = Array(contents.suffix(TableOperation.maximumSentContents))
        return result
    }
}
