import OfflineSyncCore
import OfflineSyncStore
extension SyncContext {
    /// The query's result now, then again after each committed change that alters it; see ``SyncTable/observe(_:)``.
    nonisolated func observe(_ query: Query, table: String) -> AsyncThrowingStream<QueryResult, any Error> {
        let (stream, continuation) = AsyncThrowingStream<QueryResult, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        do {
            try Self.validateTable(table)
            guard query.table == table else { throw SyncError.queryTableMismatch(table: table, queryTable: query.table) }
        } catch {
            continuation.finish(throwing: error)
            return stream
        }
        let registration = Task { await self.addObserver(QueryObserver(query: query, continuation: continuation)) }
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeObserver(await registration.value) }
        }
        return stream
    }

    /// How many queries are observed.
    var observerCount: Int { queryObservers.count }

    private func addObserver(_ observer: QueryObserver) -> Int {
        let key = nextQueryObserverKey
        nextQueryObserverKey += 1
        queryObservers[key] = observer
        markDirty(key)
        return key
    }

    private func removeObserver(_ key: Int) {
        queryObservers.removeValue(forKey: key)
    }

    /// Marks an observer for evaluation, starting an evaluation task unless one runs; never waits for it.
    func markDirty(_ key: Int) {
        queryObservers[key]?.isDirty = true
        guard let observer = queryObservers[key], !observer.isEvaluating else { return }
        queryObservers[key]?.isEvaluating = true
        Task { await self.evaluate(key) }
    }

    /// Reads the observer's query until no change came in during the read, delivering each result that differs
    /// from the last one delivered. Runs off the writers' path; changes during a read coalesce into one more read.
    private func evaluate(_ key: Int) async {
        while let observer = queryObservers[key], observer.isDirty {
            queryObservers[key]?.isDirty = false
            let result: QueryResult
            do {
                result = try await dataSource.read(observer.query)
            } catch {
                queryObservers.removeValue(forKey: key)?.continuation.finish(throwing: error)
                return
            }
            guard let current = queryObservers[key] else { return }
            if result != current.last {
                queryObservers[key]?.last = result
                current.continuation.yield(result)
            }
        }
        queryObservers[key]?.isEvaluating = false
    }
}
