import Foundation
import OfflineSync
import OfflineSyncTesting

extension BenchRunner {
    /// W1, durable single writes: records 0..<2,000 upserted one after another, each its own `.always` commit.
    func runSingleWrites() async throws {
        let items = BenchmarkRecords.generate(count: sizes.singleWrites).map(\.object)
        let store = try await factory.open(directory: try freshDirectory("w1"), durability: .always)
        var latencies: [Double] = []
        latencies.reserveCapacity(items.count)
        let start = MonotonicClock.now()
        for item in items {
            let begin = MonotonicClock.now()
            try await store.source.apply([.upsert(table: BenchmarkRecords.table, items: [item])])
            latencies.append(MonotonicClock.now() - begin)
        }
        let seconds = MonotonicClock.now() - start
        try await requireCount(store, items.count, workload: "W1")
        try await store.close()
        try report.record("W1", "w1_writes_per_s", Double(items.count) / seconds, "writes/s")
        try report.record("W1", "w1_commit_p50_us", BenchStatistics.median(latencies) * 1e6, "us")
        try report.record("W1", "w1_commit_p99_us", BenchStatistics.percentile(latencies, 0.99) * 1e6, "us")
    }

    /// W2, group commit: 16 writers (child tasks of one task group), writer w upserting records
    /// `250·w ..< 250·(w+1)` one at a time, each durable (`.grouped`) before the next.
    func runGroupCommit() async throws {
        let writers = sizes.writers
        let perWriter = sizes.writesPerWriter
        let items = BenchmarkRecords.generate(count: writers * perWriter).map(\.object)
        let store = try await factory.open(directory: try freshDirectory("w2"), durability: .grouped)
        let source = store.source
        let start = MonotonicClock.now()
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for writer in 0..<writers {
                let mine = Array(items[writer * perWriter ..< (writer + 1) * perWriter])
                group.addTask {
                    var latencies: [Double] = []
                    latencies.reserveCapacity(mine.count)
                    for item in mine {
                        let begin = MonotonicClock.now()
                        try await source.apply([.upsert(table: BenchmarkRecords.table, items: [item])])
                        latencies.append(MonotonicClock.now() - begin)
                    }
                    return latencies
                }
            }
            var all: [Double] = []
            for try await writerLatencies in group { all += writerLatencies }
            return all
        }
        let seconds = MonotonicClock.now() - start
        try await requireCount(store, items.count, workload: "W2")
        try await store.close()
        try report.record("W2", "w2_writes_per_s", Double(items.count) / seconds, "writes/s")
        try report.record("W2", "w2_write_p50_us", BenchStatistics.median(latencies) * 1e6, "us")
        try report.record("W2", "w2_write_p99_us", BenchStatistics.percentile(latencies, 0.99) * 1e6, "us")
    }

    /// W3, bulk import: records 0..<100,000 in batches of 1,000, each batch one `.always` commit. The store is then
    /// closed and kept for W4 to W7; returns its directory and the records.
    func runBulkImport() async throws -> (URL, [BenchmarkRecord]) {
        let records = BenchmarkRecords.generate(count: sizes.bulkRecords)
        guard Set(records.map { $0.id.lowercased() }).count == records.count else {
            throw BenchFailure.checkFailed(workload: "W3", detail: "the generated ids are not distinct")
        }
        let batches = stride(from: 0, to: records.count, by: sizes.batchSize).map { start in
            records[start ..< min(records.count, start + sizes.batchSize)].map(\.object)
        }
        let directory = try freshDirectory("w3")
        let store = try await factory.open(directory: directory, durability: .always)
        let start = MonotonicClock.now()
        for batch in batches {
            try await store.source.apply([.upsert(table: BenchmarkRecords.table, items: batch)])
        }
        let seconds = MonotonicClock.now() - start
        try await requireCount(store, records.count, workload: "W3")
        try await store.close()
        try report.record("W3", "w3_records_per_s", Double(records.count) / seconds, "records/s")
        return (directory, records)
    }
}
