@testable import offline_sync
import OfflineSync
import Testing

struct BenchOptionsTests {
    @Test func flagsAreParsed() throws {
        let options = try BenchOptions.parse(["--json", "--quick", "--dir", "/tmp/x", "--keep", "--suite", "json"])
        #expect(options == BenchOptions(json: true, quick: true, directory: "/tmp/x", keep: true, suite: .json))
        #expect(try BenchOptions.parse(["--suite", "open"]).suite == .open)
        #expect(try BenchOptions.parse(["--suite", "reads"]).suite == .reads)
        #expect(try BenchOptions.parse(["--suite", "queries"]).suite == .queries)
        #expect(try BenchOptions.parse(["--write-thread", "dedicated"]).writeThread == .dedicated)
        #expect(try BenchOptions.parse(["--write-thread", "shared"]).writeThread == .shared)
    }

    @Test func noFlagsMeanTheFullStoreSuiteAsText() throws {
        #expect(try BenchOptions.parse([]) == BenchOptions())
        #expect(BenchSizes(quick: false).bulkRecords == 100_000)
    }

    @Test func quickDividesCountsButKeepsWritersBatchAndRepeats() {
        let quick = BenchSizes(quick: true)
        #expect(quick.bulkRecords == 10_000 && quick.singleWrites == 200 && quick.fsyncs == 200)
        #expect(quick.writesPerWriter == 25 && quick.queries == 100 && quick.pointReads == 10_000)
        #expect(quick.writers == 16 && quick.batchSize == 1000 && quick.openRepeats == 5)
    }

    @Test(arguments: [["--dir"], ["--fast"], ["--suite", "disk"], ["--suite"], ["store"], ["--write-thread", "own"], ["--write-thread"]])
    func badArgumentsAreUsageErrors(arguments: [String]) {
        #expect(throws: BenchUsageError.self) { try BenchOptions.parse(arguments) }
    }

    @Test func usageErrorExitsWithStatusTwo() async {
        #expect(await BenchCommand.run(arguments: ["--no-such-flag"]) == 2)
    }
}
