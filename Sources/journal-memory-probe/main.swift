// W7's measuring process: a tool that links only the journal store (and the layers below it), as an app's own
// store tool would. It opens the closed store in a directory with every record loaded, then prints one JSON line:
// the records it holds and the process's resident set, `{"base_kib":…,"peak_kib":…,"records":…}`. With `--maps` the
// line also lists the shared libraries the process has mapped, so a test can show that no networking is among them.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
@preconcurrency import Glibc
#else
@preconcurrency import Darwin
#endif
import OfflineSyncCore
import OfflineSyncJournal
import OfflineSyncTesting

let arguments = Array(CommandLine.arguments.dropFirst())
guard let directory = arguments.first(where: { !$0.hasPrefix("--") }) else {
    fputs("usage: journal-memory-probe DIR [--maps]\n", stderr)
    exit(2)
}
do {
    let base = ProcessFiles.statusKiB("VmRSS")
    var options = JournalOptions(durability: .always)
    options.indexes = BenchmarkRecords.indexes
    let store = try await JournalDataSource(directory: URL(filePath: directory), options: options)
    guard let peak = ProcessFiles.statusKiB("VmHWM") else {
        fputs("journal-memory-probe: /proc/self/status has no VmHWM on this system\n", stderr)
        exit(1)
    }
    let count = try await store.read(Query(table: BenchmarkRecords.table, top: 0, includeTotalCount: true)).totalCount ?? 0
    try await store.close()
    var line: JSONObject = ["records": .int(Int64(count)), "peak_kib": .double(peak)]
    if let base { line["base_kib"] = .double(base) }
    if arguments.contains("--maps") { line["libraries"] = .array(ProcessFiles.mappedLibraries().map(JSONValue.string)) }
    print(JSONValue.object(line).jsonString(sortedKeys: true))
} catch {
    fputs("journal-memory-probe: \(error)\n", stderr)
    exit(1)
}
