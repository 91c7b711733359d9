import Foundation
import OfflineSync
import OfflineSyncTesting

extension BenchRunner {
    /// What one request costs on the simulated network of S3 and S4.
    static let networkLatency = Duration.milliseconds(50)

    /// S3, push over a network: 1,000 inserts queued offline in a fresh `.always` store (not timed), then one push
    /// with 8 in flight to the in-process back end, every request of which waits 50 ms. Timed: the push. Beside it:
    /// what a one-at-a-time client needs (one request per operation, each 50 ms), and the ratio.
    func runNetworkPush() async throws {
        let remote = InMemoryRemote(pageSize: 50)
        let (store, context, records) = try await queuedInserts(sizes.networkPushOperations, remote: remote, directory: "s3")
        await remote.setLatency(Self.networkLatency)
        let start = MonotonicClock.now()
        let result = try await context.push(settings: PushSettings(maximumConcurrentRequests: 8))
        let seconds = MonotonicClock.now() - start
        let onServer = await remote.items(table: BenchmarkRecords.table).count
        try await store.close()
        guard result.pushed == records.count, onServer == records.count else {
            throw BenchFailure.checkFailed(workload: "S3", detail: "pushed \(result.pushed), the back end holds \(onServer); expected \(records.count)")
        }
        let oneAtATime = Double(records.count) * Self.seconds(Self.networkLatency)
        try report.record("S3", "s3_push_s", seconds, "s")
        try report.record("S3", "s3_one_at_a_time_s", oneAtATime, "s")
        try report.record("S3", "s3_speedup", oneAtATime / seconds, "x")
    }

    /// S4, first pull over a network: the back end holds 20,000 records and sends at most 50 a page; one incremental
    /// pull into a fresh `.always` store with 8 requests in flight, every request waiting 50 ms. Timed: the pull.
    /// Beside it: what a one-at-a-time client needs (one page of 50 after another, plus the empty page that ends it),
    /// and the ratio.
    func runNetworkPull() async throws {
        let records = BenchmarkRecords.generate(count: sizes.networkPullRecords).map(\.object)
        let remote = InMemoryRemote(pageSize: 50)
        await remote.seed(records, table: BenchmarkRecords.table)
        await remote.setLatency(Self.networkLatency)
        let store = try await factory.open(directory: try freshDirectory("s4"), durability: .always)
        let context = SyncContext(dataSource: store.source, remote: remote)
        var settings = PullSettings(pageSize: 50)
        settings.maximumConcurrentRequests = 8
        let start = MonotonicClock.now()
        try await context.table(BenchmarkRecords.table).pull(queryId: "s4", settings: settings)
        let seconds = MonotonicClock.now() - start
        try await requireCount(store, records.count, workload: "S4")
        try await store.close()
        let oneAtATime = Double(records.count / 50 + 1) * Self.seconds(Self.networkLatency)
        try report.record("S4", "s4_pull_s", seconds, "s")
        try report.record("S4", "s4_one_at_a_time_s", oneAtATime, "s")
        try report.record("S4", "s4_speedup", oneAtATime / seconds, "x")
    }

    /// `duration` in seconds.
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
