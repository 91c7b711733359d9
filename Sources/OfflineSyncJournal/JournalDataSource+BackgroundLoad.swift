import OfflineSyncCore
import OfflineSyncStore
/// A store opened with ``JournalOptions/loadsSnapshotInBackground``: until its snapshot is loaded, ``tables`` holds
/// only what the journals changed since the snapshot (the tail), and point reads and index-served queries are
/// answered from the snapshot's lookup file (``SnapshotLookup``) merged with the tail; every other call waits for the
/// load (``waitForTables()``).
struct BackgroundLoad: Sendable {
    var lookup: SnapshotLookup
    /// Per table, the id keys the journals changed since the snapshot (upserted or deleted): the tail decides them.
    var touched: [String: Set<String>]
    /// The tables a `deleteAll` of the journals emptied: the tail decides every read of them.
    var emptied: Set<String>

    /// What the journals since the snapshot changed, from their batches in order.
    init(lookup: SnapshotLookup, batches: [[StoreChange]]) {
        self.lookup = lookup
        touched = [:]
        emptied = []
        for change in batches.joined() {
            switch change {
            case .upsert(let table, let items):
                touched[table, default: []].formUnion(items.compactMap { $0["id"]?.stringValue.map(ItemID.key) })
            case .delete(let table, let ids):
                touched[table, default: []].formUnion(ids.map(ItemID.key))
            case .deleteAll(let table, _):
                emptied.insert(table)
            }
        }
    }

    /// The largest number of items an index walk reads before the load: beyond, the query waits for the load.
    static let walkBudget = 10_000
}

extension JournalDataSource {
    /// Suspends while the tables are not ready to be read or written: while the snapshot loads in the background, or
    /// a large batch applied to them is being written (``appendApplying(_:sync:changes:packed:entriesAside:)``).
    /// Every call that reads the tables or writes the journal waits here first.
    func waitForTables() async {
        while backgroundLoad != nil || batchBeingWritten { await waitUntilIdle() }
    }

    /// Throws what keeps the tables from being read: ``JournalError/closed`` after ``close()``, or the failure of the
    /// snapshot's load in the background.
    func checkReadable() throws(JournalError) {
        if isClosed { throw JournalError.closed }
        if let loadFailure { throw loadFailure }
    }

    /// Waits until the snapshot, loading in the background since the open (``JournalOptions/loadsSnapshotInBackground``),
    /// is loaded; returns at once when it is.
    /// - Throws: the damage the load found (``JournalError/invalidSnapshot(file:offset:reason:)``, …): every later call
    ///   but ``close()`` throws it too.
    public func waitUntilLoaded() async throws {
        await waitForTables()
        try checkReadable()
    }

    /// The item `id` of `table` as the lookup file and the tail give it before the load: `.some(nil)` when it is in
    /// neither, nil when the lookup cannot tell (a check failed: the load will).
    func readBeforeLoad(table: String, id: String) -> JSONObject?? {
        let key = ItemID.key(id)
        guard let load = backgroundLoad else { return nil }
        if load.emptied.contains(table) || load.touched[table]?.contains(key) == true { return .some(tables.item(table: table, id: id)) }
        return withLookup { (lookup) throws(SnapshotLookup.Fault) in try lookup.item(table: table, key: key) }
    }

    /// The answer to `query` before the load, when the lookup file's indexes serve it and the journals since the
    /// snapshot left its table alone; nil otherwise.
    func answerBeforeLoad(_ query: Query) -> QueryResult? {
        guard let load = backgroundLoad, load.touched[query.table] == nil, !load.emptied.contains(query.table),
              (try? query.validate()) != nil
        else { return nil }
        return withLookup { (lookup) throws(SnapshotLookup.Fault) in try lookup.answer(query, budget: BackgroundLoad.walkBudget) } ?? nil
    }

    /// What `body` reads from the lookup, nil when a check failed; the lookup's cache is changed in place (the load is
    /// taken out of the store meanwhile, never copied: `body` does not suspend).
    private func withLookup<Value>(_ body: (inout SnapshotLookup) throws(SnapshotLookup.Fault) -> Value) -> Value? {
        guard var load = backgroundLoad.take() else { return nil }
        defer { backgroundLoad = load }
        return try? body(&load.lookup)
    }

    /// Loads the snapshot and replays the journals as an open does, then takes the tables in place of the tail and
    /// ends the background load; a failure is kept for every later call (``checkReadable()``).
    func loadInBackground() async {
        do throws(JournalError) {
            var reading = try await StoreReading.read(layout, fileSystem: fileSystem, files: maintenance, collectBatches: true,
                                                      indexes: options.indexes, sealing: sealing)
            if let problem = reading.snapshotProblem { throw problem }
            guard reading.snapshot?.generation == backgroundLoad?.lookup.generation, reading.lastSequence == lastSequence else {
                throw JournalError.invalidManifest(file: layout.manifestPath, reason: "it changed while the snapshot was loading")
            }
            tables = try reading.takeTables(indexes: options.indexes)
        } catch {
            loadFailure = error
        }
        backgroundLoad = nil
        notifyIdle()
    }
}
