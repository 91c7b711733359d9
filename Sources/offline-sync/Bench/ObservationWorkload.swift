import Foundation
import OfflineSync
import OfflineSyncTesting

extension BenchRunner {
    /// O1, observed writes: on the W3 store, the median latency of a local insert through `SyncTable` with no
    /// observer, then with 10 observers of top-50 queries of the table, and how long after the last write returned
    /// every observer held the final result. Timed: each insert; the settle time from the last insert's return to
    /// the arrival of each observer's last element. Check: every observer ends at the query's final result.
    func runObservedWrites(_ directory: URL) async throws {
        let store = try await factory.open(directory: directory, durability: .always)
        let records = BenchmarkRecords.generate(count: 2 * sizes.observedWrites, seed: 9).map { record -> JSONObject in
            var item = record.object
            item["version"] = nil
            return item
        }
        let table = SyncContext(dataSource: store.source, remote: NoRemote()).table(BenchmarkRecords.table)
        let unobserved = try await insertLatencies(Array(records.prefix(sizes.observedWrites)), into: table)

        let observedTable = SyncContext(dataSource: store.source, remote: NoRemote()).table(BenchmarkRecords.table)
        let queries = (0..<10).map { index in
            Query(table: BenchmarkRecords.table, filter: Field("complete") == .bool(index % 2 == 0),
                  orderBy: [.descending("updatedAt")], skip: nil, top: 50 - index)
        }
        let log = ObservedResultsLog(count: queries.count)
        let observers = queries.enumerated().map { index, query in
            Task {
                do {
                    for try await result in observedTable.observe(query) { await log.record(result, observer: index) }
                } catch {}
            }
        }
        defer { for observer in observers { observer.cancel() } }
        await log.waitForFirstResults()
        let observed = try await insertLatencies(Array(records.suffix(sizes.observedWrites)), into: observedTable)
        let lastWrite = MonotonicClock.now()
        var settle = 0.0
        for (index, query) in queries.enumerated() {
            let final = try await observedTable.read(query)
            guard let arrival = await log.arrival(of: final, observer: index, waitingAtMost: 30) else {
                throw BenchFailure.checkFailed(workload: "O1", detail: "observer \(index) did not reach the final result within 30 s")
            }
            settle = max(settle, arrival - lastWrite)
        }
        try await store.close()
        try report.record("O1", "o1_unobserved_write_us", BenchStatistics.median(unobserved) * 1e6, "us")
        try report.record("O1", "o1_observed_write_us", BenchStatistics.median(observed) * 1e6, "us")
        try report.record("O1", "o1_settle_ms", max(settle, 0) * 1e3, "ms")
    }

    /// Inserts each item through `table`, one call each; returns each call's latency in seconds.
    private func insertLatencies(_ items: [JSONObject], into table: SyncTable) async throws -> [Double] {
        var latencies: [Double] = []
        latencies.reserveCapacity(items.count)
        for item in items {
            let begin = MonotonicClock.now()
            try await table.insert(item)
            latencies.append(MonotonicClock.now() - begin)
        }
        return latencies
    }
}

/// The elements O1's observers received, with their arrival times.
actor ObservedResultsLog {
    private var latest: [Int: (result: QueryResult, arrival: Double)] = [:]
    private let count: Int

    init(count: Int) {
        self.count = count
    }

    func record(_ result: QueryResult, observer: Int) {
        let now = MonotonicClock.now()
        latest[observer] = (result, now)
    }

    /// Returns once every observer delivered its first result.
    func waitForFirstResults() async {
        while latest.count < count { try? await Task.sleep(for: .milliseconds(1)) }
    }

    /// When the observer's latest element became `result`, waiting for it at most `seconds`; nil if it never
    /// did. A loaded machine may deliver late, so this waits for the answer rather than for a quiet spell.
    func arrival(of result: QueryResult, observer: Int, waitingAtMost seconds: Double) async -> Double? {
        let deadline = MonotonicClock.now() + seconds
        while MonotonicClock.now() < deadline {
            if let latest = latest[observer], latest.result == result { return latest.arrival }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }
}
