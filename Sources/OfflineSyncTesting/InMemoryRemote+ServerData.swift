public import OfflineSyncCore
import OfflineSyncStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension InMemoryRemote {
    /// Adds rows as the server's own data (not logged as requests). Missing system fields are assigned:
    /// a new `version`, `createdAt`/`updatedAt` from the clock, `deleted: false`; `createdAt`, `updatedAt`
    /// and `deleted` given in an item are kept (to build test data at chosen times; ISO 8601 timestamps are
    /// rewritten in the server's millisecond form). Items without a valid
    /// string id get a generated one. An existing row with the same id is replaced.
    public func seed(_ items: [JSONObject], table: String) {
        for item in items {
            var row = item
            let id = row["id"]?.stringValue.flatMap { ItemID.isValid($0) ? $0 : nil } ?? UUIDText.make()
            row["id"] = .string(id)
            let givenUpdatedAt = row["updatedAt"], givenCreatedAt = row["createdAt"]
            stamp(&row, creating: true)
            if let given = Self.normalizedTimestamp(givenUpdatedAt) { row["updatedAt"] = given }
            if let given = Self.normalizedTimestamp(givenCreatedAt) { row["createdAt"] = given }
            if row["deleted"]?.boolValue == nil { row["deleted"] = false }
            put(row, id: id, table: table)
        }
    }

    /// A given timestamp in the server's own form (UTC, 3 fraction digits), so that rows sort by instant.
    private static func normalizedTimestamp(_ value: JSONValue?) -> JSONValue? {
        guard let text = value?.stringValue, let milliseconds = Timestamp.milliseconds(from: text) else { return value }
        return .string(Timestamp.string(fromMilliseconds: milliseconds))
    }

    /// The server's rows of `table`, ordered by `id`; soft-deleted rows only with `includeDeleted`.
    public func items(table: String, includeDeleted: Bool = false) -> [JSONObject] {
        (tables[table] ?? [:]).values
            .filter { includeDeleted || $0["deleted"]?.boolValue != true }
            .sorted { ($0["id"]?.stringValue ?? "") < ($1["id"]?.stringValue ?? "") }
    }

    /// The server's row with `id` (case-insensitive), deleted or not, or nil.
    public func item(id: String, table: String) -> JSONObject? {
        tables[table]?[key(id)]
    }

    /// Edits a row as another device would: merges `fields` into it, with a new version and `updatedAt`.
    /// - Returns: the new row, or nil when there is no such row.
    @discardableResult
    public func serverUpdate(id: String, table: String, fields: JSONObject) -> JSONObject? {
        guard var row = tables[table]?[key(id)] else { return nil }
        for (name, value) in fields where name != "id" && (name == "deleted" || !SystemProperties.isSystemProperty(name)) {
            row[name] = value
        }
        stamp(&row, creating: false)
        put(row, id: id, table: table)
        return row
    }

    /// Writes a row as another device's transaction that stamped `updatedAt` when its statement ran and committed
    /// `lateBy` later (SQL Server under load, app instances with skewed clocks): the row shows up with an `updatedAt`
    /// earlier than rows already readable (never before 1970). Merges `fields` into the row, or creates it when there
    /// is none.
    /// - Returns: the new row.
    @discardableResult
    public func serverWrite(id: String, table: String, fields: JSONObject, committedLateBy lateBy: Duration) -> JSONObject {
        let row: JSONObject
        if let updated = serverUpdate(id: id, table: table, fields: fields) {
            row = updated
        } else {
            seed([fields.merging(["id": .string(id)]) { _, new in new }], table: table)
            row = item(id: id, table: table) ?? [:]
        }
        var late = row
        let stamped = Timestamp.milliseconds(from: row["updatedAt"]?.stringValue ?? "") ?? 0
        let (seconds, attoseconds) = lateBy.components
        let lateMilliseconds = seconds.multipliedReportingOverflow(by: 1000)
        let delay = lateMilliseconds.overflow ? stamped : min(stamped, lateMilliseconds.partialValue + attoseconds / 1_000_000_000_000_000)
        late["updatedAt"] = .string(Timestamp.string(fromMilliseconds: stamped - max(0, delay)))
        put(late, id: id, table: table)
        return late
    }

    /// Soft-deletes a row as another device would (new version and `updatedAt`).
    /// - Returns: whether the row existed.
    @discardableResult
    public func serverDelete(id: String, table: String) -> Bool {
        serverUpdate(id: id, table: table, fields: ["deleted": true]) != nil
    }

    /// Removes a row for good, as a hard delete or a database cleanup would: clients never hear of it.
    public func hardDelete(id: String, table: String) {
        tables[table]?.removeValue(forKey: key(id))
        generations[table, default: 0] += 1
    }
}

/// Generated ids for rows seeded without one.
enum UUIDText {
    static func make() -> String {
        UUID().uuidString.lowercased()
    }
}
