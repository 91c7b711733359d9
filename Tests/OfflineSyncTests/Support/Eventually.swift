import Foundation

/// Whether `condition` comes to hold within `seconds` of real time, checking between short pauses: for effects of
/// the scheduler's own tasks, which the test cannot await directly. The bound is generous because the whole suite
/// starts at once, so on two cores these tasks can wait behind the crash tests and sweeps for tens of seconds; it
/// costs time only on failure.
func eventually(seconds: Double = 120, isolation: isolated (any Actor)? = #isolation,
                _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return try await condition()
}
