import Foundation
import OfflineSync
@testable import offline_sync
import Testing

/// Runs `bench --quick --json` in-process through the same runner as the command, on the store the command measures
/// (`BenchCommand.storeFactory`), with the quick sizes divided by 10 again so that a debug build gets through it in
/// seconds.
struct BenchRunTests {
    static let sizes = BenchSizes(divisor: 100)

    /// Every metric the store benchmark names, with its unit. `w4_bare_open_ms` is absent: the stores load every record on
    /// open, so they have no bare open to report.
    static let expectedMetrics: [String: String] = [
        "d0_fsyncs_per_s": "fsyncs/s", "w1_writes_per_s": "writes/s", "w2_writes_per_s": "writes/s",
        "w3_records_per_s": "records/s", "w4_open_ms": "ms", "w8_first_query_ms": "ms", "w5_query_us": "us", "w6_reads_per_s": "reads/s",
        "w7_peak_rss_mb": "MiB", "w1_commit_p50_us": "us", "w1_commit_p99_us": "us", "w2_write_p50_us": "us",
        "w2_write_p99_us": "us", "w5_query_p99_us": "us", "w7_base_rss_mb": "MiB",
        "s1_pull_records_per_s": "records/s", "s1_pull_cpu_us_per_record": "us", "s2_push_ops_per_s": "ops/s",
        "s2_push_cpu_us_per_op": "us",
        "s3_push_s": "s", "s3_one_at_a_time_s": "s", "s3_speedup": "x",
        "s4_pull_s": "s", "s4_one_at_a_time_s": "s", "s4_speedup": "x", "p1_budget_overrun_ms": "ms",
        "a1_upload_s": "s", "a1_download_s": "s", "a1_one_at_a_time_s": "s", "a1_upload_speedup": "x", "a1_download_speedup": "x",
        "o1_unobserved_write_us": "us", "o1_observed_write_us": "us", "o1_settle_ms": "ms", "u1_update_us": "us",
        "w5_day_range_us": "us", "w5_priority_newest_us": "us", "w5_newest_us": "us", "w5_last_week_us": "us",
        "w5_deep_page_us": "us", "w5_count_us": "us", "w5_two_equalities_us": "us",
        "w6t_reads_per_s": "reads/s", "w6t_ratio": "x", "w5t_query_us": "us", "w5t_ratio": "x",
        "w1t_inserts_per_s": "inserts/s", "w1t_untyped_inserts_per_s": "inserts/s", "w1t_ratio": "x",
    ]

    private func run(_ arguments: [String], factory: any BenchStoreFactory) async throws -> [String] {
        var lines: [String] = []
        let options = try BenchOptions.parse(arguments)
        let report = BenchReport(json: options.json) { lines.append($0) }
        let runner = try BenchRunner(
            options: options, sizes: Self.sizes, factory: factory, report: report,
            memoryProbe: InProcessMemoryProbe(factory: factory), log: { _ in })
        try await runner.run()
        return lines
    }

    @Test func quickJSONRunEmitsEveryMetricWithItsUnitAndASummary() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        let lines = try await run(["--quick", "--json", "--dir", directory.path], factory: BenchCommand.storeFactory(BenchOptions()))
        var units: [String: String] = [:]
        for line in lines.dropLast() {
            guard case .object(let object) = try JSONValue(parsing: line) else { Issue.record("not an object: \(line)"); continue }
            #expect(Set(object.keys) == ["workload", "metric", "value", "unit"])
            guard case .string(let name)? = object["metric"], case .string(let unit)? = object["unit"] else { continue }
            units[name] = unit
        }
        #expect(units == Self.expectedMetrics)
        let summary = try #require(lines.last)
        guard case .object(let all) = try JSONValue(parsing: summary) else { Issue.record("no summary"); return }
        #expect(Set(all.keys) == Set(Self.expectedMetrics.keys))
        let workloadDirectories = ["d0", "w1", "w1t", "w1u", "w2", "w3", "s1", "s2", "s3", "s4"].filter {
            FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path)
        }
        #expect(workloadDirectories.isEmpty)
    }

    @Test func aStoreThatLosesWritesFailsTheRunWithoutItsFigure() async throws {
        var lines: [String] = []
        let report = BenchReport(json: true) { lines.append($0) }
        let factory = ForgetfulStoreFactory()
        let runner = try BenchRunner(
            options: try BenchOptions.parse(["--quick", "--json"]), sizes: Self.sizes, factory: factory, report: report,
            memoryProbe: InProcessMemoryProbe(factory: factory), log: { _ in })
        await #expect(throws: BenchFailure.self) { try await runner.run() }
        #expect(report.metrics.map(\.name) == ["d0_fsyncs_per_s"])
    }

    @Test func queriesSuiteReportsW3W5AndTheShapesOnly() async throws {
        let metrics = try await summaryMetrics(suite: "queries")
        let expected = Set(Self.expectedMetrics.keys.filter { $0.hasPrefix("w3_") || $0.hasPrefix("w5_") })
        #expect(expected.count > 3)
        #expect(metrics == expected)
    }

    @Test func typedSuiteReportsEachTypedFigureBesideItsUntypedOneAndTheirRatio() async throws {
        let metrics = try await summaryMetrics(suite: "typed")
        let typed = Set(Self.expectedMetrics.keys.filter { ["w1t", "w5t", "w6t"].contains(String($0.prefix(3))) })
        #expect(typed.count == 7)
        #expect(metrics == typed.union(["w3_records_per_s", "w5_query_us", "w5_query_p99_us", "w6_reads_per_s"]))
    }

    @Test func openSuiteReportsW3W4W8AndW7Only() async throws {
        let metrics = try await summaryMetrics(suite: "open")
        let expected = Set(Self.expectedMetrics.keys.filter { ["w3_", "w4_", "w8_", "w7_"].contains(String($0.prefix(3))) })
        #expect(expected.contains("w4_open_ms") && expected.contains("w8_first_query_ms") && expected.contains("w7_peak_rss_mb"))
        #expect(metrics == expected)
    }

    @Test func encryptionSuiteReportsW1W3W4W5W6OnBothStoresAndTheCiphersThroughput() async throws {
        let metrics = try await summaryMetrics(suite: "encryption")
        let plain: Set<String> = ["w1_writes_per_s", "w1_commit_p50_us", "w1_commit_p99_us", "w3_records_per_s", "w4_open_ms",
                                  "w5_query_us", "w5_query_p99_us", "w6_reads_per_s"]
        #expect(metrics == plain.union(plain.map { $0 + "_encrypted" }).union(["c1_seal_mb_per_s", "c1_open_mb_per_s"]))
    }

    /// The metric names in the summary line of a quick JSON run of the journal store's `suite`.
    private func summaryMetrics(suite: String) async throws -> Set<String> {
        let lines = try await run(["--quick", "--json", "--suite", suite], factory: BenchCommand.storeFactory(BenchOptions()))
        guard let summary = lines.last, case .object(let all) = try JSONValue(parsing: summary) else {
            Issue.record("no summary")
            return []
        }
        return Set(all.keys)
    }

    @Test func jsonSuiteChecksEveryCodecAndReportsBothRates() async throws {
        let lines = try await run(["--quick", "--json", "--suite", "json"], factory: InMemoryBenchStoreFactory())
        let names = try lines.dropLast().map { line -> String in
            guard case .object(let object) = try JSONValue(parsing: line), case .string(let name)? = object["metric"]
            else { return "" }
            return name
        }
        for codec in ["j1_reader", "j1_serialization", "j1_decoder_value", "j1_decoder_struct", "j2_writer",
                      "j2_writer_buffer", "j2_serialization", "j2_encoder_value", "j2_encoder_struct"] {
            #expect(names.contains(codec + "_records_per_s"))
            #expect(names.contains(codec + "_mb_per_s"))
        }
    }
}

/// A store that accepts every write and keeps none: the bench must refuse to report it.
private struct ForgetfulStoreFactory: BenchStoreFactory {
    var name: String { "forgetful" }
    var persistsAcrossProcesses: Bool { false }

    func open(directory: URL, durability: BenchDurability, indexes: [IndexDefinition]) async throws -> BenchStore {
        BenchStore(source: ForgetfulDataSource(), close: {}, explain: { _ in QueryPlan(access: .scan, reason: "it keeps nothing") })
    }
}

private struct ForgetfulDataSource: SyncContextDataSource {
    func read(table: String, id: String) async throws -> JSONObject? { nil }
    func read(_ query: Query) async throws -> QueryResult { QueryResult(items: [], totalCount: query.includeTotalCount ? 0 : nil) }
    func apply(_ changes: [StoreChange]) async throws {}
}
