import OfflineSyncCore
import OfflineSyncStore
extension SyncContext {
    /// Fetches by id each item of `table` that a resolution dropped without the server's copy (``RefetchStore``), one
    /// request per item (each with a permit of `permits`), and stores what the server holds as a pulled page is
    /// stored: the row when there is one, nothing when the server has none or holds it soft-deleted, and nothing over
    /// an item that has a pending operation again. The record goes in the same `apply`, so an item is fetched until
    /// a pull stored its answer. A pull of the table calls it before its pages.
    /// - Throws: what the remote's read throws (the records not fetched yet stay), `CancellationError`, a data-source
    ///   error.
    func refetchDiscardedItems(table: String, permits: RequestPermits) async throws {
        for record in try await RefetchStore.records(table: table, in: dataSource) {
            let itemId = record.itemId
            try Task.checkCancellation()
            await permits.acquire()
            let answer: Result<[JSONObject], any Error>
            do { answer = .success(try await serverRows(table: table, itemId: itemId)) } catch { answer = .failure(error) }
            await permits.release()
            let rows = try answer.get()
            let skipped = try await transaction { transaction in
                let page = PulledPage(rows, table: table, pending: try await queue.pendingItemKeys(table: table), checkingItems: true)
                transaction.stage((page.changes(saving: nil) ?? []) + [RefetchStore.removing([record])])
                return page.skipped
            }
            for (_, reason) in skipped {
                report(SyncDiagnostic(code: .skippedPulledRecord, table: table, itemId: itemId,
                                      message: reason + " The record, fetched again after a resolution discarded its item, was left out."))
            }
        }
    }
}
