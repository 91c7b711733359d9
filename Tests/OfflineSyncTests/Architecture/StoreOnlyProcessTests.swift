import Foundation
@testable import OfflineSyncJournal
import OfflineSync
import OfflineSyncTesting
import Testing

/// A tool that embeds only the journal store links `OfflineSyncJournal` and the layers below it, so its process starts
/// without Foundation proper, its networking, libcurl or ICU. `journal-memory-probe` (W7's measuring process) is such a
/// tool: run it on a store and read the libraries it has mapped.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/maps"), "needs procfs"))
struct StoreOnlyProcessTests {
    static let probe: URL? = BuiltProducts.executable("journal-memory-probe")

    @Test func aProcessThatLinksOnlyTheStoreMapsNoNetworkingLibrary() async throws {
        let probe = try #require(Self.probe, "journal-memory-probe is built with the tests")
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = JournalOptions()
        options.indexes = BenchmarkRecords.indexes
        let store = try await JournalDataSource(directory: directory.store, options: options)
        try await store.apply([.upsert(table: BenchmarkRecords.table, items: BenchmarkRecords.generate(count: 300).map(\.object))])
        try await store.close()

        let process = Process()
        process.executableURL = probe
        process.arguments = [directory.storePath, "--maps"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        guard case .object(let line) = try JSONValue(parsing: Array(output)), case .array(let mapped)? = line["libraries"] else {
            Issue.record("the probe printed \(String(decoding: output, as: UTF8.self))")
            return
        }
        #expect(line["records"] == .int(300), "the probe opened the store with every record")
        let libraries = mapped.compactMap { if case .string(let name) = $0 { name } else { nil } }
        #expect(libraries.contains { $0.hasPrefix("libswiftCore") }, "the libraries were read: \(libraries)")
        for library in libraries {
            for unwanted in ["libFoundation.so", "libFoundationNetworking", "libFoundationInternationalization", "_FoundationICU", "libcurl"] {
                #expect(!library.hasPrefix(unwanted) && !library.contains(unwanted), "the store-only process maps \(library)")
            }
        }
    }
}
