import Foundation

/// How many cases a fuzz test runs: a bound that keeps CI at a few seconds, multiplied by
/// `OFFLINESYNC_FUZZ=<factor>` for a long run.
enum FuzzBudget {
    static let factor = ProcessInfo.processInfo.environment["OFFLINESYNC_FUZZ"].flatMap { Int($0) }.map { max($0, 1) } ?? 1

    /// `base` cases, times the long-run factor.
    static func cases(_ base: Int) -> Int { base * factor }
}
