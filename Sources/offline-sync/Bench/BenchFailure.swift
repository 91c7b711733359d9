/// Why a benchmark run stopped without a figure: a failed check, a bad argument or a failing system call.
enum BenchFailure: Error, Sendable, CustomStringConvertible {
    /// A workload's result did not pass its check; no figure is reported for it.
    case checkFailed(workload: String, detail: String)
    /// A system call failed.
    case system(workload: String, call: String, errno: Int32)
    /// A metric came out as NaN or infinity.
    case notFinite(metric: String)
    /// W7's measuring process failed or printed something unexpected.
    case memoryProbe(detail: String)

    var description: String {
        switch self {
        case .checkFailed(let workload, let detail):
            "\(workload) failed its check: \(detail). The store gave a wrong result; fix the store before quoting figures."
        case .system(let workload, let call, let errno):
            "\(workload): \(call) failed with errno \(errno). Check that the bench directory is writable and has space."
        case .notFinite(let metric):
            "The metric \(metric) is not a finite number; the timed region was probably empty, so check the sizes."
        case .memoryProbe(let detail):
            "W7's measuring process failed: \(detail). Run it alone with `journal-memory-probe DIR` (beside offline-sync) to see why."
        }
    }
}
