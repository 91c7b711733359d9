/// One measured figure of the benchmark.
struct BenchMetric: Sendable, Hashable {
    /// The workload that measured it: `D0`, `W1` … `W7`, `J1`, `J2`.
    var workload: String
    /// The metric name fixed by the workload definition, such as `w1_writes_per_s`.
    var name: String
    /// The value, finite.
    var value: Double
    /// The unit fixed by the workload definition, such as `writes/s`.
    var unit: String

    /// The JSON line of the workload definition: `{"workload":"W1","metric":"w1_writes_per_s","value":5617.651,"unit":"writes/s"}`.
    var jsonLine: String {
        "{\"workload\":\"\(workload)\",\"metric\":\"\(name)\",\"value\":\(BenchReport.decimal(value)),\"unit\":\"\(unit)\"}"
    }

    /// A line for people: the metric, its value and unit.
    var textLine: String {
        let label = name.padding(to: 34)
        return "\(workload.padding(to: 4))\(label)\(BenchReport.decimal(value)) \(unit)"
    }
}

/// Collects the benchmark's figures and prints each as soon as it is measured: a JSON line with `--json`, a text
/// line otherwise; ``finish()`` prints the final line with every metric.
final class BenchReport {
    /// Every metric so far, in the order measured.
    private(set) var metrics: [BenchMetric] = []
    private let json: Bool
    private let output: (String) -> Void
    /// Appended to every metric name recorded meanwhile (`_encrypted` while the encryption suite measures its
    /// encrypted store), so that the same workload on two stores gives two figures.
    var nameSuffix = ""

    /// A report that hands each line to `output` (standard output in the command).
    init(json: Bool, output: @escaping (String) -> Void) {
        self.json = json
        self.output = output
    }

    /// Records and prints one figure.
    /// - Throws: ``BenchFailure/notFinite(metric:)`` for NaN or infinity, which JSON cannot carry.
    func record(_ workload: String, _ name: String, _ value: Double, _ unit: String) throws(BenchFailure) {
        guard value.isFinite else { throw BenchFailure.notFinite(metric: name) }
        let metric = BenchMetric(workload: workload, name: name + nameSuffix, value: value, unit: unit)
        metrics.append(metric)
        output(json ? metric.jsonLine : metric.textLine)
    }

    /// Prints the final line: every metric in one JSON object (`--json`), nothing otherwise.
    func finish() {
        guard json else { return }
        output(summaryLine)
    }

    /// `{"d0_fsyncs_per_s":7739.388,"w1_writes_per_s":5617.651,…}`.
    var summaryLine: String {
        "{" + metrics.map { "\"\($0.name)\":\(BenchReport.decimal($0.value))" }.joined(separator: ",") + "}"
    }

    /// `value` with exactly three decimals, as the GRDB bench prints it (`%.3f`), without Foundation.
    static func decimal(_ value: Double) -> String {
        let thousandths = (value.magnitude * 1000).rounded()
        guard thousandths < 9.0e18 else { return String(value) }
        let scaled = UInt64(thousandths)
        let fraction = String(scaled % 1000)
        let sign = value < 0 && scaled > 0 ? "-" : ""
        return sign + String(scaled / 1000) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

extension String {
    /// The string padded with spaces to at least `width` characters.
    fileprivate func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
