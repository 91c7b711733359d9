import Foundation
import OfflineSync
import OfflineSyncTesting

extension BenchRunner {
    /// W4, cold open: W3's closed store opened 5 times, each in a new store object closed again afterwards (not
    /// timed). The journal store has every record in memory once its initialiser returns, so it reports no bare open.
    func runColdOpen(_ directory: URL, _ records: [BenchmarkRecord]) async throws {
        var times: [Double] = []
        for repetition in 0..<sizes.openRepeats {
            let (seconds, store) = try await MonotonicClock.measure {
                try await factory.open(directory: directory, durability: .always)
            }
            times.append(seconds)
            if repetition == 0 { try await requireEqualRecords(store, records) }
            try await store.close()
        }
        log("offline-sync bench: W4 open (ms): " + times.map { BenchReport.decimal($0 * 1e3) }.joined(separator: " "))
        try report.record("W4", "w4_open_ms", BenchStatistics.median(times) * 1e3, "ms")
    }

    /// W8, time to first answers: W3's closed store opened 5 times, each in a new store object, the journal store
    /// before its snapshot is loaded (``JournalOptions/loadsSnapshotInBackground``); timed each time, the open, the W5
    /// query and one point read of the record in the middle of W3's order (the close, which waits for the load, is
    /// not timed).
    func runFirstAnswers(_ directory: URL, _ records: [BenchmarkRecord]) async throws {
        guard !records.isEmpty else { return }
        let middle = records[records.count / 2].id
        var times: [Double] = []
        for _ in 0..<sizes.openRepeats {
            let begin = MonotonicClock.now()
            let store = try await factory.openForFirstAnswers(directory: directory)
            let answered = try await store.source.read(Self.w5Query).items.count
            let found = try await store.source.read(table: BenchmarkRecords.table, id: middle) != nil
            times.append(MonotonicClock.now() - begin)
            try await store.close()
            guard answered == min(50, records.filter { !$0.complete }.count), found else {
                throw BenchFailure.checkFailed(workload: "W8", detail: "\(answered) items answered, the middle record \(found ? "" : "not ")found")
            }
        }
        log("offline-sync bench: W8 first answers (ms): " + times.map { BenchReport.decimal($0 * 1e3) }.joined(separator: " "))
        try report.record("W8", "w8_first_query_ms", BenchStatistics.median(times) * 1e3, "ms")
    }

    /// W5's query: the 50 newest open records.
    static let w5Query = Query(table: BenchmarkRecords.table, filter: Field("complete") == false,
                               orderBy: [.descending("updatedAt")], top: 50)

    /// W5, query: `complete == false ORDER BY updatedAt DESC LIMIT 50`, 1,000 calls each timed on its own.
    func runQuery(_ store: BenchStore, _ records: [BenchmarkRecord]) async throws {
        let query = Self.w5Query
        let plan = try await store.explain(query)
        guard plan.index == benchIndexes.first else {
            throw BenchFailure.checkFailed(workload: "W5", detail: "the query does not use the index: \(plan)")
        }
        log("offline-sync bench: W5 plan: \(plan)")
        var latencies: [Double] = []
        latencies.reserveCapacity(sizes.queries)
        var result = QueryResult(items: [])
        for _ in 0..<sizes.queries {
            let begin = MonotonicClock.now()
            result = try await store.source.read(query)
            latencies.append(MonotonicClock.now() - begin)
        }
        let expected = Array(records.filter { !$0.complete }.map(\.updatedAt).sorted(by: >).prefix(50))
        let got = result.items.compactMap(BenchmarkRecord.init)
        guard got.count == result.items.count, got.map(\.updatedAt) == expected, got.allSatisfy({ !$0.complete }) else {
            throw BenchFailure.checkFailed(
                workload: "W5", detail: "the query returned \(result.items.count) items that are not the 50 newest open ones")
        }
        try report.record("W5", "w5_query_us", BenchStatistics.median(latencies) * 1e6, "us")
        try report.record("W5", "w5_query_p99_us", BenchStatistics.percentile(latencies, 0.99) * 1e6, "us")
    }

    /// W6, point reads: 100,000 reads by id, ids from the W6 lookup sequence, each its own call.
    func runPointReads(_ store: BenchStore, _ records: [BenchmarkRecord]) async throws {
        let ids = BenchmarkRecords.lookupIndexes(count: sizes.pointReads, storeSize: records.count).map { records[$0].id }
        var found = 0
        let start = MonotonicClock.now()
        for id in ids where try await store.source.read(table: BenchmarkRecords.table, id: id) != nil {
            found += 1
        }
        let seconds = MonotonicClock.now() - start
        guard found == ids.count else {
            throw BenchFailure.checkFailed(workload: "W6", detail: "\(ids.count - found) of \(ids.count) ids were not found")
        }
        try report.record("W6", "w6_reads_per_s", Double(ids.count) / seconds, "reads/s")
    }

    /// Throws unless `store` holds exactly `records`, equal field by field.
    private func requireEqualRecords(_ store: BenchStore, _ records: [BenchmarkRecord]) async throws {
        let items = try await store.source.read(Query(table: BenchmarkRecords.table)).items
        var stored: [String: BenchmarkRecord] = [:]
        stored.reserveCapacity(items.count)
        for item in items {
            guard let record = BenchmarkRecord(item) else {
                throw BenchFailure.checkFailed(workload: "W4", detail: "a stored item is not a benchmark record: \(item)")
            }
            stored[record.id] = record
        }
        guard items.count == records.count, records.allSatisfy({ stored[$0.id] == $0 }) else {
            throw BenchFailure.checkFailed(
                workload: "W4", detail: "read \(items.count) records that differ from the \(records.count) written")
        }
    }
}
