import Foundation
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

extension BenchRunner {
    /// D0, the disk's durable-append rate: in a fresh directory, 2,000 × (`write` 200 bytes + `fsync`) on a file
    /// opened with `O_WRONLY|O_CREAT|O_APPEND`. Not a store figure: it shows how busy the disk was.
    func runDiskReference() throws {
        let path = try freshDirectory("d0").appendingPathComponent("fsync.log").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0o600)
        guard descriptor >= 0 else { throw BenchFailure.system(workload: "D0", call: "open(\(path))", errno: errno) }
        defer { close(descriptor) }
        let line = [UInt8](repeating: UInt8(ascii: "x"), count: 199) + [UInt8(ascii: "\n")]
        let start = MonotonicClock.now()
        for _ in 0..<sizes.fsyncs {
            let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written == line.count else { throw BenchFailure.system(workload: "D0", call: "write", errno: errno) }
            guard fsync(descriptor) == 0 else { throw BenchFailure.system(workload: "D0", call: "fsync", errno: errno) }
        }
        let seconds = MonotonicClock.now() - start
        var status = stat()
        guard fstat(descriptor, &status) == 0, Int(status.st_size) == line.count * sizes.fsyncs else {
            throw BenchFailure.checkFailed(workload: "D0", detail: "the file does not hold \(sizes.fsyncs) lines")
        }
        try report.record("D0", "d0_fsyncs_per_s", Double(sizes.fsyncs) / seconds, "fsyncs/s")
    }
}
