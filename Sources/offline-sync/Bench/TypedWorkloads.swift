import Foundation
import OfflineSync
import OfflineSyncTesting

/// A typed insert's model: the benchmark record without `version`, which the store's server assigns.
struct BenchNewTodo: Codable, Sendable {
    var id: String
    var text: String
    var complete: Bool
    var priority: Int
    var updatedAt: String
}

extension BenchRunner {
    /// W6t, typed point reads: W6's ids through `TypedSyncTable<CodableTodo>.read(id:)` on a sync context over the open
    /// store, each decoded into a struct. The ratio to untyped reads (`w6t_ratio`, typed rate over untyped) comes from
    /// W6's reads of the same ids made in the same workload, a tenth at a time in turn (A B B A), so that both see the
    /// same phases of the machine; `w6t_reads_per_s` is the typed reads' rate.
    func runTypedPointReads(_ store: BenchStore, _ records: [BenchmarkRecord]) async throws {
        let ids = BenchmarkRecords.lookupIndexes(count: sizes.pointReads, storeSize: records.count).map { records[$0].id }
        let table = SyncContext(dataSource: store.source, remote: NoRemote()).table(CodableTodo.self, name: BenchmarkRecords.table)
        var (found, typedSeconds, untypedSeconds) = (0, 0.0, 0.0)
        var last: CodableTodo?
        let tenth = max(1, ids.count / 10)
        for (round, start) in stride(from: 0, to: ids.count, by: tenth).enumerated() {
            let part = ids[start ..< min(ids.count, start + tenth)]
            for typed in round % 2 == 0 ? [false, true] : [true, false] {
                let begin = MonotonicClock.now()
                if typed {
                    for id in part {
                        if let model = try await table.read(id: id) {
                            found += 1
                            last = model
                        }
                    }
                    typedSeconds += MonotonicClock.now() - begin
                } else {
                    for id in part where try await store.source.read(table: BenchmarkRecords.table, id: id) == nil {
                        throw BenchFailure.checkFailed(workload: "W6t", detail: "the untyped read of \(id) found nothing")
                    }
                    untypedSeconds += MonotonicClock.now() - begin
                }
            }
        }
        guard found == ids.count, let last, records.contains(where: { CodableTodo($0) == last }) else {
            throw BenchFailure.checkFailed(workload: "W6t", detail: "\(ids.count - found) of \(ids.count) ids were not found, or a record read back differs")
        }
        try report.record("W6t", "w6t_reads_per_s", Double(ids.count) / typedSeconds, "reads/s")
        try recordRatio("W6t", "w6t_ratio", untypedSeconds / typedSeconds)
    }

    /// W5t, typed query: W5's query through `TypedSyncTable<CodableTodo>.read(_:)`, 1,000 calls each timed on its own;
    /// the median. Each typed call has an untyped one (W5's `read`) beside it, in turn first and second: the ratio
    /// (`w5t_ratio`) is their median over the typed median, above 1 when typed is faster.
    func runTypedQuery(_ store: BenchStore, _ records: [BenchmarkRecord]) async throws {
        let table = SyncContext(dataSource: store.source, remote: NoRemote()).table(CodableTodo.self, name: BenchmarkRecords.table)
        var (typed, untyped): ([Double], [Double]) = ([], [])
        typed.reserveCapacity(sizes.queries)
        untyped.reserveCapacity(sizes.queries)
        var models: [CodableTodo] = []
        for call in 0..<sizes.queries {
            for isTyped in call % 2 == 0 ? [false, true] : [true, false] {
                let begin = MonotonicClock.now()
                if isTyped {
                    models = try await table.read(Self.w5Query)
                    typed.append(MonotonicClock.now() - begin)
                } else {
                    _ = try await store.source.read(Self.w5Query)
                    untyped.append(MonotonicClock.now() - begin)
                }
            }
        }
        let expected = Array(records.filter { !$0.complete }.map(\.updatedAt).sorted(by: >).prefix(50))
        guard models.map(\.updatedAt) == expected, models.allSatisfy({ !$0.complete }) else {
            throw BenchFailure.checkFailed(workload: "W5t", detail: "the typed query returned \(models.count) models that are not the 50 newest open ones")
        }
        try report.record("W5t", "w5t_query_us", BenchStatistics.median(typed) * 1e6, "us")
        try recordRatio("W5t", "w5t_ratio", BenchStatistics.median(untyped) / BenchStatistics.median(typed))
    }

    /// W1t, typed local inserts: W1's records (without `version`) inserted one after another through
    /// `TypedSyncTable<BenchNewTodo>.insert` into a fresh `.always` store, each a durable transaction that stores the
    /// item and queues its insert; beside it, in the same workload, the same records as items through `SyncTable.insert`
    /// into another fresh store (`w1t_untyped_inserts_per_s`), a quarter at a time in turn so that both see the same
    /// phases of the disk. Records both rates and their ratio (`w1t_ratio`).
    func runTypedInserts() async throws {
        let records = BenchmarkRecords.generate(count: sizes.singleWrites)
        let typedStore = try await factory.open(directory: try freshDirectory("w1t"), durability: .always)
        let untypedStore = try await factory.open(directory: try freshDirectory("w1u"), durability: .always)
        let typed = SyncContext(dataSource: typedStore.source, remote: NoRemote()).table(BenchNewTodo.self, name: BenchmarkRecords.table)
        let untyped = SyncContext(dataSource: untypedStore.source, remote: NoRemote()).table(BenchmarkRecords.table)
        var (typedSeconds, untypedSeconds) = (0.0, 0.0)
        let quarter = max(1, records.count / 4)
        for start in stride(from: 0, to: records.count, by: quarter) {
            let part = records[start ..< min(records.count, start + quarter)]
            var begin = MonotonicClock.now()
            for record in part {
                var item = record.object
                item["version"] = nil
                try await untyped.insert(item)
            }
            untypedSeconds += MonotonicClock.now() - begin
            begin = MonotonicClock.now()
            for record in part {
                try await typed.insert(BenchNewTodo(id: record.id, text: record.text, complete: record.complete,
                                                    priority: record.priority, updatedAt: record.updatedAt))
            }
            typedSeconds += MonotonicClock.now() - begin
        }
        try await requireCount(typedStore, records.count, workload: "W1t")
        try await requireCount(untypedStore, records.count, workload: "W1t")
        try await typedStore.close()
        try await untypedStore.close()
        try report.record("W1t", "w1t_inserts_per_s", Double(records.count) / typedSeconds, "inserts/s")
        try report.record("W1t", "w1t_untyped_inserts_per_s", Double(records.count) / untypedSeconds, "inserts/s")
        try recordRatio("W1t", "w1t_ratio", untypedSeconds / typedSeconds)
    }

    /// Records `ratio`, typed over untyped (a rate over a rate, or a time over a time inverted: above 1 when typed is
    /// faster), as `name` with unit `x`, and logs it beside the goal of 0.7.
    private func recordRatio(_ workload: String, _ name: String, _ ratio: Double) throws {
        log("offline-sync bench: \(workload) typed / untyped = \(BenchReport.decimal(ratio)) (goal ≥ 0.7)")
        try report.record(workload, name, ratio, "x")
    }
}
