import Foundation
import OfflineSync
import OfflineSyncTesting

/// What W7's measuring process (`journal-memory-probe`) reports: the records it loaded and its resident set in KiB.
struct MemoryFigures: Sendable, Equatable {
    /// How many records the opened store held.
    var records: Int
    /// `VmHWM`: the peak resident set of the whole process.
    var peakKiB: Double
    /// `VmRSS` at the start, before opening; nil where there is no procfs.
    var baseKiB: Double?

    /// The figures from the probe's one line of output, `{"base_kib":17408,"peak_kib":59392,"records":100000}`, or nil
    /// when it is not such a line.
    init?(jsonLine: some Collection<UInt8>) {
        guard case .object(let object)? = try? JSONValue(parsing: jsonLine),
              case .int(let records)? = object["records"], let peak = object["peak_kib"]?.number
        else { return nil }
        self.init(records: Int(records), peakKiB: peak, baseKiB: object["base_kib"]?.number)
    }

    init(records: Int, peakKiB: Double, baseKiB: Double?) {
        self.records = records
        self.peakKiB = peakKiB
        self.baseKiB = baseKiB
    }
}

/// Measures W7 on the closed W3 store in a directory.
protocol MemoryProbe: Sendable {
    /// The figures of a process that holds the store in `directory`, which W3 filled with `sizes.bulkRecords`.
    func measure(directory: URL, sizes: BenchSizes) async throws -> MemoryFigures
}

/// W7 as the workload definition specifies it, in a fresh process so that its peak resident set is the loaded
/// store's, not W3's or W4's: `journal-memory-probe`, built beside this binary, which links only the journal store and
/// the layers below it (no HTTP transport, no Foundation networking), as an app's own store tool would.
struct ChildProcessMemoryProbe: MemoryProbe {
    /// The probe's path: beside the running executable.
    static var executableURL: URL {
        (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0]))
            .deletingLastPathComponent().appendingPathComponent("journal-memory-probe")
    }

    func measure(directory: URL, sizes: BenchSizes) async throws -> MemoryFigures {
        let probe = Self.executableURL
        guard FileManager.default.isExecutableFile(atPath: probe.path) else {
            throw BenchFailure.memoryProbe(
                detail: "\(probe.path) is missing; `swift build --product offline-sync` builds it beside offline-sync")
        }
        let process = Process()
        process.executableURL = probe
        process.arguments = [directory.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let figures = MemoryFigures(jsonLine: output) else {
            throw BenchFailure.memoryProbe(
                detail: "exit status \(process.terminationStatus), output '\(String(decoding: output, as: UTF8.self))'")
        }
        return figures
    }
}

/// W7's measurement run in the calling process, through the same code as the child: for tests of the bench.
struct InProcessMemoryProbe: MemoryProbe {
    let factory: any BenchStoreFactory

    func measure(directory: URL, sizes: BenchSizes) async throws -> MemoryFigures {
        try await MemoryProbeChild.measure(directory: directory, factory: factory, sizes: sizes)
    }
}

/// W7's measurement in the calling process (the tests of the bench run it so).
enum MemoryProbeChild {
    /// Opens the store in `directory`, loading every record as W4 does, and reads the peak resident set while the
    /// store is still open. A store that does not persist across processes is filled with W3's records first. The
    /// record count is checked after the reading, so that the check's own allocations are not in the figure.
    static func measure(directory: URL, factory: any BenchStoreFactory, sizes: BenchSizes) async throws -> MemoryFigures {
        let base = ProcessFiles.statusKiB("VmRSS")
        let store = try await factory.open(directory: directory, durability: .always)
        if !factory.persistsAcrossProcesses, try await recordCount(store) == 0 {
            let records = BenchmarkRecords.generate(count: sizes.bulkRecords)
            for start in stride(from: 0, to: records.count, by: sizes.batchSize) {
                let batch = records[start ..< min(records.count, start + sizes.batchSize)].map(\.object)
                try await store.source.apply([.upsert(table: BenchmarkRecords.table, items: batch)])
            }
        }
        guard let peak = ProcessFiles.statusKiB("VmHWM") else {
            throw BenchFailure.memoryProbe(detail: "/proc/self/status has no VmHWM on this system")
        }
        let count = try await recordCount(store)
        try await store.close()
        return MemoryFigures(records: count, peakKiB: peak, baseKiB: base)
    }

    private static func recordCount(_ store: BenchStore) async throws -> Int {
        try await store.source.read(Query(table: BenchmarkRecords.table, top: 0, includeTotalCount: true)).totalCount ?? 0
    }
}

extension BenchRunner {
    /// W7, memory: the peak resident set of a fresh process holding W3's store open with every record loaded.
    func runMemory(_ directory: URL) async throws {
        let figures = try await memoryProbe.measure(directory: directory, sizes: sizes)
        guard figures.records == sizes.bulkRecords else {
            throw BenchFailure.checkFailed(
                workload: "W7", detail: "the measuring process loaded \(figures.records) records, expected \(sizes.bulkRecords)")
        }
        try report.record("W7", "w7_peak_rss_mb", figures.peakKiB / 1024, "MiB")
        if let base = figures.baseKiB { try report.record("W7", "w7_base_rss_mb", base / 1024, "MiB") }
    }
}

extension JSONValue {
    /// The value as a Double when it is a number.
    fileprivate var number: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
}
