import Foundation

/// `offline-sync bench`: the store benchmark (D0, W1 to W7), observed writes (O1), local updates (U1), the sync workloads (S1 to S4, P1) and the JSON codec
/// benchmark (J1, J2). Figures go to standard output, progress and errors to standard error.
enum BenchCommand {
    /// The command's name and summary for `offline-sync --help`; its options are parsed by ``BenchOptions``.
    static let spec = CommandSpec(
        name: "bench",
        summary: "Measures the journal store (workloads D0, W1 to W7, O1, U1, S1 to S4, P1) or the JSON codecs.")

    /// The store under test: every workload reaches `JournalDataSource` through this one factory
    /// (`InMemoryBenchStoreFactory` exists for the bench's own tests).
    static func storeFactory(_ options: BenchOptions) -> any BenchStoreFactory {
        JournalBenchStoreFactory(writeThread: options.writeThread)
    }

    /// Runs the command with the arguments after `bench`; returns the exit status: 0 on success, 1 when a workload
    /// or a check failed, 2 for a usage error.
    static func run(arguments: [String]) async -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            writeStandardOutput(BenchOptions.usage)
            return 0
        }
        let options: BenchOptions
        do {
            options = try BenchOptions.parse(arguments)
        } catch {
            writeStandardError(error.description + "\n" + BenchOptions.usage)
            return 2
        }
        do {
            let report = BenchReport(json: options.json, output: writeStandardOutput)
            let runner = try BenchRunner(
                options: options, factory: storeFactory(options), report: report, memoryProbe: ChildProcessMemoryProbe(),
                log: writeStandardError, progress: ProgressReporter(label: "bench"))
            try await runner.run()
            return 0
        } catch {
            writeStandardError("offline-sync bench: error: \(error)")
            return 1
        }
    }

    /// Writes one line to standard output at once (no buffering, so lines and the child's output never interleave).
    static func writeStandardOutput(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Writes one line to standard error.
    static func writeStandardError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
