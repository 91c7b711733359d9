import OfflineSync

/// The command line of `offline-sync bench`.
struct BenchOptions: Sendable, Equatable {
    /// Which workloads a run performs.
    enum Suite: String, Sendable {
        /// D0 and W1 to W7, the store benchmark compare.sh reads.
        case store
        /// S1 to S4, P1 and A1 alone: pull and push through `SyncContext`, S3, S4, P1 and A1 at 50 ms a request (they
        /// also end the store suite).
        case sync
        /// J1 and J2: JSON reading and writing, OfflineSync's own reader and writer against Foundation's.
        case json
        /// W3 to fill a store, then W4, W8 and W7 alone: for profiling and comparing the open, the first answers and the memory.
        case open
        /// W3 to fill a store, then W6 and W7 alone: for profiling and comparing point reads and memory.
        case reads
        /// W3 to fill a store, then W5 and the query shapes beside it alone: for profiling and comparing queries.
        case queries
        /// W3 to fill a store, then W5, W5t, W6, W6t and W1t alone: the typed figures beside their untyped ones.
        case typed
        /// W3 to fill a store, then O1 and U1 alone: for comparing local writes through the engine.
        case writes
        /// A1 alone: attachment files up and down over the loopback interface at 50 ms a request.
        case attachments
        /// W1, W3, W4, W5 and W6 on a plaintext store, then on an encrypted one, and C1, the cipher's throughput.
        case encryption
    }

    /// Print JSON lines (the format compare.sh reads) instead of text.
    var json = false
    /// Sizes divided by 10: a smoke run whose figures are not for quoting.
    var quick = false
    /// What the store of W3 to W7 is multiplied by: 10 makes the million-record run.
    var scale = 1
    /// Where the workloads' directories go; nil means a new directory under the system temp dir.
    var directory: String?
    /// Leave the workloads' data behind.
    var keep = false
    /// The workloads to run.
    var suite = Suite.store
    /// Where the journal store writes and syncs (`JournalOptions.writeThread`).
    var writeThread = JournalWriteThread.shared

    static let usage = """
        usage: offline-sync bench [--json] [--quick] [--scale K] [--dir PATH] [--keep]
                            [--suite store|sync|json|open|reads|queries|typed|writes|attachments|encryption]
                            [--write-thread shared|dedicated]
          --json          one JSON object per metric on stdout, then one with every metric (for compare.sh)
          --quick         10x smaller sizes: a smoke run, not for quoting
          --scale K       K times the records in the store of W3 to W7 (10: a million); W5 still runs 1,000
                          queries and W6 100,000 reads
          --dir PATH      put the workloads' data under PATH (default: a new directory in the temp dir)
          --keep          leave the data behind
          --suite NAME    store (default): D0, W1-W8 with W1t, W5t, W6t, then O1 (observed writes), U1 (local updates), S1-S4 (sync),
                          P1 (runs within a budget), A1 (attachments); sync: S1-S4, P1 and A1 alone (S3, S4, P1, A1 at
                          50 ms a request); json: J1, J2;
                          open: W3 to fill the store, then W4, W8 and W7 alone;
                          reads: W3 to fill the store, then W6 and W7 alone;
                          queries: W3 to fill the store, then W5 and the query shapes beside it alone;
                          typed: W3 to fill the store, then W5, W5t, W6, W6t (typed reads) and W1t (typed inserts);
                          writes: W3 to fill the store, then O1 and U1 alone;
                          attachments: A1 alone (200 files of 256 KiB up, then down, 8 at once);
                          encryption: W1, W3, W4, W5, W6 on a plaintext store, then on an encrypted one
                          (metrics suffixed _encrypted), and C1, the cipher's MB/s
          --write-thread  where the journal store writes and syncs: shared (default: Swift's shared pool) or
                          dedicated (a thread of the store's own)
        """

    /// Parses the arguments after `bench`.
    /// - Throws: ``BenchUsageError`` for an unknown flag or a missing value.
    static func parse(_ arguments: [String]) throws(BenchUsageError) -> BenchOptions {
        var options = BenchOptions()
        var index = 0
        func value(for flag: String) throws(BenchUsageError) -> String {
            index += 1
            guard index < arguments.count else { throw BenchUsageError(message: "\(flag) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--json": options.json = true
            case "--quick": options.quick = true
            case "--keep": options.keep = true
            case "--dir": options.directory = try value(for: argument)
            case "--scale":
                let text = try value(for: argument)
                guard let scale = Int(text), (1...100).contains(scale) else {
                    throw BenchUsageError(message: "--scale needs a whole number from 1 to 100, not '\(text)'")
                }
                options.scale = scale
            case "--suite":
                let name = try value(for: argument)
                guard let suite = Suite(rawValue: name) else {
                    throw BenchUsageError(message: "unknown suite '\(name)'; use store, sync, json, open, reads, queries, typed, writes, attachments or encryption")
                }
                options.suite = suite
            case "--write-thread":
                switch try value(for: argument) {
                case "shared": options.writeThread = .shared
                case "dedicated": options.writeThread = .dedicated
                case let other: throw BenchUsageError(message: "unknown write thread '\(other)'; use shared or dedicated")
                }
            default: throw BenchUsageError(message: "unknown argument '\(argument)'")
            }
            index += 1
        }
        return options
    }
}

/// A bad `bench` command line.
struct BenchUsageError: Error, Sendable, CustomStringConvertible {
    /// What is wrong with the arguments.
    var message: String

    var description: String { "offline-sync bench: \(message). Run `offline-sync bench --help` for the flags." }
}

/// Workload sizes; quick mode divides record and run counts by 10, while the writers (16), the batch size (1,000)
/// and the repetitions (5) stay. A scale multiplies the records of W3's store (and so of W4 to W7) only.
struct BenchSizes: Sendable, Equatable {
    /// What the full sizes are divided by: 1, or 10 for `--quick` (tests of the bench use more).
    let divisor: Int
    /// What W3's record count is multiplied by.
    let scale: Int
    let fsyncs, singleWrites, writers, writesPerWriter, bulkRecords, batchSize, openRepeats, queries, pointReads: Int
    /// Inserts O1 times without observers, and again with them.
    let observedWrites: Int
    /// Records S1 pulls, operations S2 pushes.
    let syncPullRecords, syncPushOperations: Int
    /// Operations S3 pushes and records S4 pulls over the simulated network (50 ms a request).
    let networkPushOperations, networkPullRecords: Int
    /// Files of 256 KiB A1 uploads and downloads.
    let attachmentFiles: Int
    /// Budgeted runs P1 makes; the worst overrun is reported.
    let budgetRuns: Int
    /// Records parsed and written by J1 and J2.
    let jsonRecords: Int
    /// Times each JSON codec runs; the median is reported.
    let jsonRepeats: Int

    init(quick: Bool, scale: Int = 1) {
        self.init(divisor: quick ? 10 : 1, scale: scale)
    }

    /// The full sizes divided by `divisor` (at least 1), W3's records multiplied by `scale`; W2's per-writer count
    /// never drops below 1.
    init(divisor: Int, scale: Int = 1) {
        let divisor = max(divisor, 1)
        self.divisor = divisor
        self.scale = max(scale, 1)
        fsyncs = 2000 / divisor
        singleWrites = 2000 / divisor
        writers = 16
        writesPerWriter = max(250 / divisor, 1)
        bulkRecords = 100_000 * max(scale, 1) / divisor
        batchSize = 1000
        openRepeats = 5
        queries = 1000 / divisor
        pointReads = 100_000 / divisor
        observedWrites = max(500 / divisor, 10)
        syncPullRecords = 100_000 / divisor
        syncPushOperations = 10_000 / divisor
        networkPushOperations = max(1000 / divisor, 8)
        networkPullRecords = max(20_000 / divisor, 50)
        attachmentFiles = max(200 / divisor, 1)
        budgetRuns = max(10 / divisor, 1)
        jsonRecords = 100_000 / divisor
        jsonRepeats = 3
    }
}
