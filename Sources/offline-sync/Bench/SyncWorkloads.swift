import Foundation
import OfflineSync
import OfflineSyncTesting

extension BenchRunner {
    /// S1, pull: the in-process back end holds records 0..<100,000; one incremental pull (page size 1,000) brings
    /// them into a fresh `.always` store through `SyncContext`. Timed: the pull. Check: every record is local.
    func runSyncPull() async throws {
        let records = BenchmarkRecords.generate(count: sizes.syncPullRecords).map(\.object)
        let remote = InMemoryRemote(pageSize: 1000)
        await remote.seed(records, table: BenchmarkRecords.table)
        let store = try await factory.open(directory: try freshDirectory("s1"), durability: .always)
        let context = SyncContext(dataSource: store.source, remote: remote)
        let (start, startCPU) = (MonotonicClock.now(), MonotonicClock.processCPU())
        try await context.table(BenchmarkRecords.table).pull(queryId: "s1", settings: PullSettings(pageSize: 1000))
        let (seconds, cpuSeconds) = (MonotonicClock.now() - start, MonotonicClock.processCPU() - startCPU)
        try await requireCount(store, records.count, workload: "S1")
        try await store.close()
        try report.record("S1", "s1_pull_records_per_s", Double(records.count) / seconds, "records/s")
        try report.record("S1", "s1_pull_cpu_us_per_record", cpuSeconds * 1e6 / Double(records.count), "us")
    }

    /// S2, push: 10,000 inserts queued offline in a fresh `.always` store (not timed), then one push to the
    /// in-process back end. Timed: the push. Check: the back end holds every record and nothing stays queued.
    func runSyncPush() async throws {
        let remote = InMemoryRemote(pageSize: 1000)
        let (store, context, records) = try await queuedInserts(sizes.syncPushOperations, remote: remote, directory: "s2")
        let (start, startCPU) = (MonotonicClock.now(), MonotonicClock.processCPU())
        let result = try await context.push()
        let (seconds, cpuSeconds) = (MonotonicClock.now() - start, MonotonicClock.processCPU() - startCPU)
        let onServer = await remote.items(table: BenchmarkRecords.table).count
        let queued = try await context.pendingOperationCount()
        try await store.close()
        guard result.pushed == records.count, onServer == records.count, queued == 0 else {
            throw BenchFailure.checkFailed(
                workload: "S2", detail: "pushed \(result.pushed), the back end holds \(onServer), \(queued) still queued; expected \(records.count)")
        }
        try report.record("S2", "s2_push_ops_per_s", Double(records.count) / seconds, "ops/s")
        try report.record("S2", "s2_push_cpu_us_per_op", cpuSeconds * 1e6 / Double(records.count), "us")
    }

    /// A fresh `.always` store in the workload's `directory` with `count` benchmark records inserted offline, and a
    /// context over it and `remote`.
    func queuedInserts(_ count: Int, remote: InMemoryRemote, directory: String)
        async throws -> (store: BenchStore, context: SyncContext, records: [JSONObject]) {
        let records = BenchmarkRecords.generate(count: count).map(\.object)
        let store = try await factory.open(directory: try freshDirectory(directory), durability: .always)
        let context = SyncContext(dataSource: store.source, remote: remote)
        let table = context.table(BenchmarkRecords.table)
        for record in records {
            var item = record
            item["version"] = nil
            try await table.insert(item)
        }
        return (store, context, records)
    }
}
