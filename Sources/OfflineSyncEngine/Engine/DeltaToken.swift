import OfflineSyncCore
import OfflineSyncStore
/// The point an incremental pull has reached for one (table, query id): the `updatedAt` and id of the last record it
/// stored, in the server's order of `updatedAt` then `id`.
public struct DeltaToken: Sendable, Hashable {
    /// The pulled table.
    public var table: String
    /// The pull's query id.
    public var queryId: String
    /// The newest `updatedAt` seen, as an ISO 8601 string with milliseconds.
    public var updatedAt: String
    /// The id of the last record stored at `updatedAt`; nil when the next pull asks for every record at or after
    /// `updatedAt` (a token of an earlier version, or one saved while a pull paged one instant by position).
    public var afterId: String?

    /// Creates a token description.
    public init(table: String, queryId: String, updatedAt: String, afterId: String? = nil) {
        self.table = table
        self.queryId = queryId
        self.updatedAt = updatedAt
        self.afterId = afterId
    }
}

extension SyncContext {
    /// Every stored delta token, sorted by table and query id (for tools that show a store's sync state).
    public func deltaTokens() async throws -> [DeltaToken] {
        let rows = try await dataSource.read(Query(table: EngineTables.config, filter: Field("kind") == "deltaToken"))
        return rows.items.compactMap { row in
            guard let table = row["table"]?.stringValue, let queryId = row["queryId"]?.stringValue,
                  let value = row["value"]?.stringValue else { return nil }
            return DeltaToken(table: table, queryId: queryId, updatedAt: value, afterId: row["afterId"]?.stringValue)
        }
        .sorted { ($0.table, $0.queryId) < ($1.table, $1.queryId) }
    }
}
