public import OfflineSyncCore
public import OfflineSyncStore
/// One table of a ``SyncContext``: local reads and writes that work offline, plus pull and purge.
///
/// ```swift
/// let todos = context.table("TodoItem")
/// let item = try await todos.insert(["text": "buy milk", "complete": false])   // id generated
/// try await todos.update(item.merging(["complete": true]) { $1 })
/// var open = todos.query()
/// open.filter = Field("complete") == false
/// let result = try await todos.read(open)
/// try await todos.pull(queryId: "todos")
/// ```
/// Every call on a table whose name is invalid or reserved (`__…`) throws ``SyncError``.
public struct SyncTable: Sendable {
    /// The table's name.
    public let name: String
    /// The context the table belongs to.
    public let context: SyncContext

    init(name: String, context: SyncContext) {
        self.name = name
        self.context = context
    }

    /// Inserts the item locally and queues an insert. An item without `id` (or with a `null` id) gets an
    /// upper-case UUID.
    /// - Returns: the item as stored (with its id).
    /// - Throws: ``SyncError`` for an invalid id, an id that exists locally, or a pending operation that
    ///   does not allow an insert.
    @discardableResult public func insert(_ item: JSONObject) async throws -> JSONObject {
        try await context.insert(item, table: name)
    }

    /// Replaces the item locally (creating it when absent) and queues an update, or collapses into the
    /// pending insert or update of the item. The caller gives the whole item: a field the stored item holds and `item`
    /// lacks is gone, locally and, once pushed, on a server that replaces items (v3 `PUT`). (A typed table's update
    /// keeps the fields its model does not declare: ``TypedSyncTable/update(_:)``.)
    /// - Throws: ``SyncError`` for a missing or invalid id, or a pending delete.
    @discardableResult public func update(_ item: JSONObject) async throws -> JSONObject {
        try await context.update(item, table: name)
    }

    /// Deletes the item locally and queues a delete carrying `item` as its snapshot (its `version` becomes
    /// `If-Match`). A pending insert of the item is removed instead: nothing reaches the server.
    /// - Throws: ``SyncError`` for a missing or invalid id, or a pending delete.
    public func delete(_ item: JSONObject) async throws {
        try await context.delete(item, table: name)
    }

    /// The local item with `id` (case-insensitive), or nil.
    public func read(id: String) async throws -> JSONObject? {
        try SyncContext.validateTable(name)
        return try await context.dataSource.read(table: name, id: id)
    }

    /// The local items matching `query`, with the local query rules.
    /// - Throws: ``SyncError`` when the query is for another table.
    public func read(_ query: Query) async throws -> QueryResult {
        try SyncContext.validateTable(name)
        guard query.table == name else { throw SyncError.queryTableMismatch(table: name, queryTable: query.table) }
        return try await context.dataSource.read(query)
    }

    /// How the store would answer `query`: the index it walks, or a scan, and why. Reads no item; use it to see
    /// why a query is slow. A store without a planner reports a scan (``SyncContextDataSource/explain(_:)``).
    /// - Throws: ``SyncError`` when the query is for another table; the store's error for an invalid query.
    public func explain(_ query: Query) async throws -> QueryPlan {
        try SyncContext.validateTable(name)
        guard query.table == name else { throw SyncError.queryTableMismatch(table: name, queryTable: query.table) }
        return try await context.dataSource.explain(query)
    }

    /// The query's result now, then again after each committed change made through the context that alters it
    /// (local writes, `write` batches, push bookkeeping, pulled pages, purge, resolutions).
    ///
    /// ```swift
    /// for try await result in todos.observe(Query(table: "TodoItem", filter: Field("complete") == false, top: 50)) {
    ///     render(result.items)
    /// }
    /// ```
    ///
    /// An element equal to the last one is not sent again; a slow consumer gets the newest result, never an older
    /// one after a newer; no write waits for an observer. The stream ends when the iterating task is cancelled,
    /// and throws ``SyncError`` for a query of another table or the store's error when a read fails.
    public func observe(_ query: Query) -> AsyncThrowingStream<QueryResult, any Error> {
        context.observe(query, table: name)
    }

    /// A query of this table: `Query(table: name)`.
    public func query() -> Query { Query(table: name) }

    /// Pulls records from the server into the local table; see ``SyncContext`` for the rules.
    ///
    /// - Parameters:
    ///   - query: what to pull (default: every record). Its `table` must be this table. `select` and
    ///     `includeTotalCount` are rejected; with a `queryId`, so are `orderBy`, `skip` and `top`.
    ///   - queryId: makes the pull incremental: a delta token per (table, query id) remembers the greatest
    ///     `updatedAt` pulled, and the next pull starts there. 1 to 255 characters, no control characters.
    ///   - settings: the page size (1 or more).
    /// - Throws: ``SyncError`` for bad arguments; the ``PushError`` of a failing pre-push; ``RemoteError``;
    ///   `CancellationError`.
    public func pull(_ query: Query? = nil, queryId: String? = nil,
                     settings: PullSettings = PullSettings()) async throws {
        try await context.pull(table: name, query: query, queryId: queryId, settings: settings)
    }

    /// Deletes local items: those matching `query` (default: all) when the table has no pending operation;
    /// with `force: true`, the whole table with its pending operations and their errors. A purge that deletes any
    /// item resets every delta token of the table, so that the next incremental pull of each query brings back what
    /// the server still has; tokens of other tables stay.
    /// - Throws: ``SyncError/purgeBlocked(table:pendingOperations:)``,
    ///   ``SyncError/forcePurgeWithQuery(table:)``.
    public func purge(_ query: Query? = nil, force: Bool = false) async throws {
        try await context.purge(table: name, query: query, force: force)
    }
}
