public import OfflineSyncCore
/// A local store the sync engine reads and writes: user tables plus the engine's own tables
/// (`__operations`, `__errors`, `__config`), all as tables of JSON objects.
///
/// This protocol is open: implement it to keep data wherever you like, and run
/// `DataSourceConformance.check(_:)` from `OfflineSyncTesting` in your tests to prove the promises below.
///
/// ## Implementation requirements
/// - `apply` is **all or nothing**: validate the whole batch first (table names by ``TableName``, ids by
///   ``ItemID``, items are objects with a string `id`), then apply every change in order or none of them, and make
///   the result as durable as the store promises before returning.
/// - Ids match **case-insensitively**; a stored item keeps the casing it was last written with.
/// - `upsert` replaces whole items; reading a missing id returns `nil`; deleting a missing id is not an error.
/// - `read(_:)` follows the local query rules: ``Filter/matches(_:)`` semantics, a total ordering
///   (missing/null < bool < number < string < array < object), `skip`, `top`, `select` (listed fields plus `id`),
///   and `totalCount` counting every match when asked for. ``Query/evaluate(over:)`` implements all of it.
/// - Reading a table that has never been written returns no items (it is not an error).
/// - `transaction` is **isolated from every other writer**: between the moment `body` starts and the moment its
///   staged changes are applied, no other transaction or `apply` changes the store, and a read made in `body` sees
///   every change applied before the transaction began. When `body` throws, nothing is applied. The default
///   implementation gives this isolation among transactions only (see ``transaction(isolation:_:)``).
public protocol SyncContextDataSource: Sendable {
    /// The item with `id` (matched case-insensitively) in `table`, or nil.
    func read(table: String, id: String) async throws -> JSONObject?
    /// The items of `query.table` matching the query.
    func read(_ query: Query) async throws -> QueryResult
    /// Applies every change or none, atomically, and durably as far as the store promises.
    func apply(_ changes: [StoreChange]) async throws
    /// Runs `body` where the caller runs (on `isolation`), isolated from every other writer of the store, then
    /// applies the changes it staged in `transaction` as one ``apply(_:)`` would (or as
    /// ``applyDeferringDurability(_:)``, when it sets ``StoreTransaction/defersDurability``). When `body` throws,
    /// nothing is applied and the error is rethrown. Like GRDB's `write { db in }`: the read, the decision and the
    /// write cannot be interleaved with another writer's.
    ///
    /// The default implementation runs the transactions of one store one at a time, in the order they began, through
    /// a gate kept per store object (one gate for every store that is a value type), then calls ``apply(_:)``; it
    /// cannot hold back a plain `apply` made outside a transaction. Implement it in your store to hold those back too.
    func transaction<T: Sendable>(isolation: isolated (any Actor)?,
                                  _ body: (inout StoreTransaction) async throws -> T) async throws -> T
    /// Applies every change or none, atomically, like ``apply(_:)``, but the store need not make them durable before
    /// it returns: the engine uses it for changes it can redo when a crash loses them (the bookkeeping of a pushed
    /// operation: the operation is then sent again and its answer counts as success). They become durable no later
    /// than the next ``apply(_:)`` does, and a crash never keeps a later change without this one. The default
    /// implementation calls ``apply(_:)``.
    func applyDeferringDurability(_ changes: [StoreChange]) async throws
    /// The names of the tables that hold at least one item, the engine's `__` tables included, in any order.
    /// ``SyncContext/erase()`` deletes each of them. The default implementation throws
    /// `DataSourceError.Code.unsupported`: a store that cannot list its tables cannot be erased.
    func tableNames() async throws -> [String]
    /// Removes from the store's files every byte of the items it no longer holds, so that nothing deleted can be read
    /// back from them; ``SyncContext/erase()`` calls it after deleting everything. The default implementation does
    /// nothing, which suits a store that keeps nothing on disk.
    func discardDeletedData() async throws
    /// How ``read(_:)`` would answer `query`: the index it walks, or a scan, and why (like SQLite's
    /// `EXPLAIN QUERY PLAN`). Reads no item. The default implementation, for a store without a planner, reports a
    /// scan and says so.
    func explain(_ query: Query) async throws -> QueryPlan
}

extension SyncContextDataSource {
    /// Runs `body` where the caller runs, isolated from every other writer of the store, then applies what it
    /// staged: ``transaction(isolation:_:)`` with the caller's isolation.
    public func transaction<T: Sendable>(_ body: (inout StoreTransaction) async throws -> T,
                                         isolation: isolated (any Actor)? = #isolation) async throws -> T {
        try await transaction(isolation: isolation, body)
    }

    /// Runs `body` isolated from the store's other transactions, then applies what it staged.
    public func transaction<T: Sendable>(isolation: isolated (any Actor)?,
                                         _ body: (inout StoreTransaction) async throws -> T) async throws -> T {
        let gate = TransactionGates.gate(for: self)
        await gate.lock()
        do {
            var transaction = StoreTransaction(dataSource: self)
            let value = try await body(&transaction)
            if transaction.changes.isEmpty {
                // Nothing to apply: a store's apply may do work (a sync) even for an empty batch.
            } else if transaction.defersDurability {
                try await applyDeferringDurability(transaction.changes)
            } else {
                try await apply(transaction.changes)
            }
            await gate.unlock()
            return value
        } catch {
            await gate.unlock()
            throw error
        }
    }

    /// Calls ``apply(_:)``: every change durable as the store promises.
    public func applyDeferringDurability(_ changes: [StoreChange]) async throws {
        try await apply(changes)
    }

    /// Throws `DataSourceError.Code.unsupported`: implement it to let ``SyncContext/erase()`` work on your store.
    public func tableNames() async throws -> [String] {
        throw DataSourceError.unsupported("listing its tables (tableNames()), which SyncContext.erase() needs")
    }

    /// Does nothing.
    public func discardDeletedData() async throws {}
    /// A scan, for a store that does not plan its reads: it is assumed to test every item.
    /// - Throws: ``DataSourceError`` for an invalid table name or query, as ``read(_:)`` would.
    public func explain(_ query: Query) async throws -> QueryPlan {
        try StoreChange.validateTable(query.table)
        do { try query.validate() } catch { throw DataSourceError.invalidQuery(error) }
        return QueryPlan(access: .scan, reason: "\(Self.self) has no query planner (it does not implement explain(_:)); "
            + "assume it tests every item")
    }
}
