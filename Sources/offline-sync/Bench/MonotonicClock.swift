#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// Readings of the system's monotonic clock (`CLOCK_MONOTONIC`), which never jumps with wall-clock changes.
enum MonotonicClock {
    /// Seconds since an arbitrary fixed point.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }

    /// Seconds of CPU time the whole process used so far (every thread), from `CLOCK_PROCESS_CPUTIME_ID`: what a
    /// workload costs whatever else the machine runs.
    static func processCPU() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }

    /// The seconds `body` takes, and what it returned.
    static func measure<T>(_ body: () async throws -> T) async rethrows -> (seconds: Double, value: T) {
        let start = now()
        let value = try await body()
        return (now() - start, value)
    }
}
