import Foundation
import OfflineSync
import OfflineSyncTesting

extension BenchRunner {
    /// U1, local updates: on the W3 store, the median latency of a local update through `SyncTable` of an item that has
    /// no pending operation, so that each queues a new update (whose row keeps the item's base, the stored copy the
    /// change starts from). Timed: each update. Check: as many updates are queued as were made.
    func runLocalUpdates(_ directory: URL) async throws {
        let store = try await factory.open(directory: directory, durability: .always)
        let context = SyncContext(dataSource: store.source, remote: NoRemote())
        let table = context.table(BenchmarkRecords.table)
        let pending = Set(try await context.pendingOperations().map { $0.itemId.lowercased() })
        let targets = try await table.read(Query(table: BenchmarkRecords.table, orderBy: [.ascending("id")],
                                                 top: sizes.observedWrites + pending.count)).items
            .filter { !pending.contains($0["id"]?.stringValue?.lowercased() ?? "") }
            .prefix(sizes.observedWrites)
        let queuedBefore = try await context.pendingOperationCount()
        var latencies: [Double] = []
        latencies.reserveCapacity(targets.count)
        for var item in targets {
            item["complete"] = .bool(item["complete"]?.boolValue != true)
            let begin = MonotonicClock.now()
            try await table.update(item)
            latencies.append(MonotonicClock.now() - begin)
        }
        let queued = try await context.pendingOperationCount() - queuedBefore
        try await store.close()
        guard queued == targets.count else {
            throw BenchFailure.checkFailed(workload: "U1", detail: "\(queued) updates queued, expected \(targets.count)")
        }
        try report.record("U1", "u1_update_us", BenchStatistics.median(latencies) * 1e6, "us")
    }
}
