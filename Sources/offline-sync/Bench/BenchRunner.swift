import Foundation
import OfflineSync
import OfflineSyncTesting

/// Runs one suite of workloads in order, each write workload in a fresh directory under ``root``, and records every
/// figure in ``report`` as soon as its check has passed.
struct BenchRunner {
    let options: BenchOptions
    let sizes: BenchSizes
    var factory: any BenchStoreFactory
    let report: BenchReport
    let memoryProbe: any MemoryProbe
    /// Progress and diagnostics (standard error in the command).
    let log: (String) -> Void
    /// A bar over the workloads, advanced only between timed regions; nil in tests.
    let progress: ProgressReporter?
    /// The directory every workload directory goes in.
    let root: URL
    private let ownsRoot: Bool

    /// Prepares a run; creates the root directory (`--dir`, or a new one in the temp dir). `sizes` defaults to the
    /// ones `--quick` selects.
    init(
        options: BenchOptions, sizes: BenchSizes? = nil, factory: any BenchStoreFactory, report: BenchReport,
        memoryProbe: any MemoryProbe, log: @escaping (String) -> Void, progress: ProgressReporter? = nil
    ) throws {
        self.options = options
        self.sizes = sizes ?? BenchSizes(quick: options.quick, scale: options.scale)
        self.factory = factory
        self.report = report
        self.memoryProbe = memoryProbe
        self.log = log
        self.progress = progress
        if let directory = options.directory {
            root = URL(fileURLWithPath: directory).standardizedFileURL
            ownsRoot = false
        } else {
            root = FileManager.default.temporaryDirectory
                .appendingPathComponent("offline-sync-bench-" + UUID().uuidString)
            ownsRoot = true
        }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// The suite the options ask for, then the final line of the report; the data is removed unless `--keep`.
    func run() async throws {
        defer { removeData() }
        switch options.suite {
        case .store: try await runStoreSuite()
        case .sync:
            try await runSyncPull()
            try await runSyncPush()
            try await runNetworkPush()
            try await runNetworkPull()
            try await runBudgetedRuns()
            try await runAttachments()
        case .attachments: try await runAttachments()
        case .encryption: try await runEncryptionSuite()
        case .json: try runJSONSuite()
        case .open: try await runOpenSuite()
        case .reads: try await runReadsSuite()
        case .queries: try await runQueriesSuite()
        case .typed: try await runTypedSuite()
        case .writes:
            let (directory, _) = try await runBulkImport()
            try await runObservedWrites(directory)
            try await runLocalUpdates(directory)
        }
        report.finish()
    }

    /// D0 and W1 to W8, in the store benchmark's order (W1t after W1, W5t and W6t after W6 on W6's store, the query
    /// shapes beside W5 after them), then O1 (observed writes), U1 (local updates), the sync workloads S1 to S4, P1
    /// (runs within a budget) and A1 (attachments).
    func runStoreSuite() async throws {
        log("offline-sync bench: \(factory.name), \(options.quick ? "quick" : "full") sizes, \(sizes.bulkRecords) records in W3, data under \(root.path)")
        let total = 21
        var done = 0
        func step(_ name: String) {
            progress?.label = "bench \(name)"
            progress?.update(done: done, total: total)
            done += 1
        }
        step("D0 disk fsync rate")
        try runDiskReference()
        step("W1 durable single writes")
        try await runSingleWrites()
        step("W1t typed inserts")
        try await runTypedInserts()
        step("W2 group commit")
        try await runGroupCommit()
        step("W3 bulk import")
        let (directory, records) = try await runBulkImport()
        step("W4 cold open")
        try await runColdOpen(directory, records)
        step("W8 first answers")
        try await runFirstAnswers(directory, records)
        let store = try await factory.open(directory: directory, durability: .always)
        step("W5 query")
        try await runQuery(store, records)
        step("W6 point reads")
        try await runPointReads(store, records)
        step("W6t typed point reads")
        try await runTypedPointReads(store, records)
        step("W5t typed query")
        try await runTypedQuery(store, records)
        try await store.close()
        step("W5 query shapes")
        try await runQueryShapes(directory, records)
        step("W7 memory")
        try await runMemory(directory)
        step("O1 observed writes")
        try await runObservedWrites(directory)
        step("U1 local updates")
        try await runLocalUpdates(directory)
        step("S1 sync pull")
        try await runSyncPull()
        step("S2 sync push")
        try await runSyncPush()
        step("S3 push over a network")
        try await runNetworkPush()
        step("S4 pull over a network")
        try await runNetworkPull()
        step("P1 runs within a budget")
        try await runBudgetedRuns()
        step("A1 attachments over a network")
        try await runAttachments()
        progress?.label = "bench"
        progress?.finish(done: done, total: total)
    }

    /// W3 to fill a store, then W4, W8 and W7 on it: the open, the first answers and the memory, without the rest of
    /// the store suite.
    func runOpenSuite() async throws {
        log("offline-sync bench: \(factory.name), W3 then W4, W8 and W7, \(sizes.bulkRecords) records, data under \(root.path)")
        let (directory, records) = try await runBulkImport()
        try await runColdOpen(directory, records)
        try await runFirstAnswers(directory, records)
        try await runMemory(directory)
    }

    /// W3 to fill a store, then W6 and W7 on it: the point reads and the memory, without the rest of the store suite.
    func runReadsSuite() async throws {
        let (directory, _) = try await runBulkImportOpening("W6 and W7") { try await runPointReads($0, $1) }
        try await runMemory(directory)
    }

    /// W3 to fill a store, then W5 and the query shapes beside it: the queries, without the rest of the store suite.
    func runQueriesSuite() async throws {
        let (directory, records) = try await runBulkImportOpening("W5 and the query shapes") { try await runQuery($0, $1) }
        try await runQueryShapes(directory, records)
    }

    /// W3 to fill a store, then on it W5, W5t, W6 and W6t, then W1t: the typed figures beside their untyped ones,
    /// without the rest of the store suite.
    func runTypedSuite() async throws {
        _ = try await runBulkImportOpening("W5, W5t, W6, W6t and W1t") { store, records in
            try await runQuery(store, records)
            try await runTypedQuery(store, records)
            try await runPointReads(store, records)
            try await runTypedPointReads(store, records)
        }
        try await runTypedInserts()
    }

    /// W3, then `workload` on its store opened again (and closed after it); logs that the suite runs `workloads`.
    private func runBulkImportOpening(
        _ workloads: String, _ workload: (BenchStore, [BenchmarkRecord]) async throws -> Void
    ) async throws -> (URL, [BenchmarkRecord]) {
        log("offline-sync bench: \(factory.name), W3 then \(workloads), \(sizes.bulkRecords) records, data under \(root.path)")
        let (directory, records) = try await runBulkImport()
        let store = try await factory.open(directory: directory, durability: .always)
        try await workload(store, records)
        try await store.close()
        return (directory, records)
    }

    /// J1 and J2.
    func runJSONSuite() throws {
        log("offline-sync bench: JSON codecs, \(sizes.jsonRecords) records, median of \(sizes.jsonRepeats) runs each")
        let corpus = JSONCorpus(records: BenchmarkRecords.generate(count: sizes.jsonRecords))
        try runJSONReading(corpus)
        try runJSONWriting(corpus)
    }

    /// A new, empty directory for one workload.
    func freshDirectory(_ name: String) throws -> URL {
        let directory = root.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// How many records `store` holds in the benchmark table.
    func count(_ store: BenchStore) async throws -> Int {
        let result = try await store.source.read(
            Query(table: BenchmarkRecords.table, top: 0, includeTotalCount: true))
        return result.totalCount ?? 0
    }

    /// Throws unless `store` holds exactly `expected` records.
    func requireCount(_ store: BenchStore, _ expected: Int, workload: String) async throws {
        let actual = try await count(store)
        guard actual == expected else {
            throw BenchFailure.checkFailed(workload: workload, detail: "the store holds \(actual) records, expected \(expected)")
        }
    }

    private func removeData() {
        guard !options.keep else { return }
        if ownsRoot {
            try? FileManager.default.removeItem(at: root)
        } else {
            for name in ["d0", "w1", "w1t", "w1u", "w2", "w3", "s1", "s2", "s3", "s4", "p1"] { try? FileManager.default.removeItem(at: root.appendingPathComponent(name)) }
        }
    }
}
