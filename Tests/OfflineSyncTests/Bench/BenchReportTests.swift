import OfflineSync
@testable import offline_sync
import Testing

struct BenchReportTests {
    @Test func metricLineHasWorkloadMetricValueAndUnitInOrder() {
        let metric = BenchMetric(workload: "W1", name: "w1_writes_per_s", value: 5617.651, unit: "writes/s")
        #expect(metric.jsonLine == #"{"workload":"W1","metric":"w1_writes_per_s","value":5617.651,"unit":"writes/s"}"#)
    }

    @Test(arguments: [
        (5617.651, "5617.651"), (0.008, "0.008"), (12, "12.000"), (0.0004, "0.000"), (0.0996, "0.100"),
        (1_234_567.5, "1234567.500"), (-2.5, "-2.500"),
    ])
    func valuesHaveExactlyThreeDecimals(value: Double, text: String) {
        #expect(BenchReport.decimal(value) == text)
    }

    @Test func reportPrintsEachMetricThenASummaryOfAll() throws {
        var lines: [String] = []
        let report = BenchReport(json: true) { lines.append($0) }
        try report.record("D0", "d0_fsyncs_per_s", 7739.388, "fsyncs/s")
        try report.record("W4", "w4_open_ms", 102.8, "ms")
        report.finish()
        #expect(lines == [
            #"{"workload":"D0","metric":"d0_fsyncs_per_s","value":7739.388,"unit":"fsyncs/s"}"#,
            #"{"workload":"W4","metric":"w4_open_ms","value":102.800,"unit":"ms"}"#,
            #"{"d0_fsyncs_per_s":7739.388,"w4_open_ms":102.800}"#,
        ])
        for line in lines { _ = try JSONValue(parsing: line) }
    }

    @Test func textReportHasNoSummaryLine() throws {
        var lines: [String] = []
        let report = BenchReport(json: false) { lines.append($0) }
        try report.record("W6", "w6_reads_per_s", 1, "reads/s")
        report.finish()
        #expect(lines.count == 1)
        #expect(lines[0].hasPrefix("W6"))
        #expect(lines[0].hasSuffix("1.000 reads/s"))
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteValuesAreRefused(value: Double) {
        let report = BenchReport(json: true) { _ in }
        #expect(throws: BenchFailure.self) { try report.record("W1", "w1_writes_per_s", value, "writes/s") }
        #expect(report.metrics.isEmpty)
    }

    @Test func medianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        #expect(BenchStatistics.median([4, 1, 3, 2]) == 2.5)
        #expect(BenchStatistics.median([5, 1, 3]) == 3)
        #expect(BenchStatistics.median([]) == 0)
    }

    @Test func percentileUsesTheNearestRank() {
        let values = (1...200).map(Double.init)
        #expect(BenchStatistics.percentile(values, 0.99) == 198)
        #expect(BenchStatistics.percentile(values, 0.5) == 100)
        #expect(BenchStatistics.percentile([7], 0.99) == 7)
    }

    @Test func memoryFiguresAreReadFromTheProbesLine() {
        let line = #"{"base_kib":17408.0,"libraries":["libc.so.6"],"peak_kib":59392.0,"records":100000}"#
        #expect(MemoryFigures(jsonLine: Array(line.utf8)) == MemoryFigures(records: 100_000, peakKiB: 59_392, baseKiB: 17_408))
        #expect(MemoryFigures(jsonLine: Array(#"{"peak_kib":1.5,"records":3}"#.utf8)) == MemoryFigures(records: 3, peakKiB: 1.5, baseKiB: nil))
    }

    @Test(arguments: ["", "not json", #"{"records":1}"#, #"{"records":"1","peak_kib":2}"#])
    func garbageFromTheChildIsRejected(line: String) {
        #expect(MemoryFigures(jsonLine: Array(line.utf8)) == nil)
    }
}
