import OfflineSync
import OfflineSyncTesting
import Testing

struct BenchmarkRecordsTests {
    /// The first 100,000 records, generated once for the tests that need all of them.
    static let hundredThousand = BenchmarkRecords.generate(count: 100_000)

    @Test func splitMix64MatchesTheReferenceStreamForSeedZero() {
        var generator = SplitMix64(seed: 0)
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
    }

    @Test(arguments: [
        (0, #"{"id":"BDD73226-2FEB-4E95-A8EF-E333B266F103","text":"Task 000000: fix the login bug","complete":false,"priority":0,"updatedAt":"2026-11-29T09:29:49.062Z","version":"37e9671c"}"#),
        (1, #"{"id":"CCF635EE-9E9E-4FA4-9705-B8770B3D7DD5","text":"Task 000001: call the landlord","complete":true,"priority":6,"updatedAt":"2026-05-05T21:31:51.398Z","version":"851f9773"}"#),
        (99_999, #"{"id":"E7A52DDE-5733-424B-B14A-C47F5EE35E69","text":"Task 099999: write the summary","complete":false,"priority":0,"updatedAt":"2026-08-08T23:56:06.325Z","version":"0b5d7f85"}"#),
    ])
    func recordMatchesTheWorkloadCheckValue(index: Int, canonical: String) {
        #expect(Self.hundredThousand[index].canonicalJSON == canonical)
    }

    @Test(arguments: [
        (2_000, UInt64(0xD2EF_834A_154D_B669)),
        (10_000, UInt64(0x3FBA_F52F_156C_BA3F)),
        (100_000, UInt64(0x9C72_A619_70B0_D8C5)),
    ])
    func checksumMatchesTheWorkloadCheckValue(count: Int, checksum: UInt64) {
        #expect(BenchmarkRecords.checksum(Self.hundredThousand.prefix(count)) == checksum)
    }

    @Test func generatingFewerRecordsGivesAPrefixOfTheStream() {
        #expect(BenchmarkRecords.generate(count: 2_000) == Array(Self.hundredThousand.prefix(2_000)))
    }

    @Test func aDifferentSeedChangesTheChecksum() {
        #expect(BenchmarkRecords.checksum(BenchmarkRecords.generate(count: 100, seed: 43))
            != BenchmarkRecords.checksum(Self.hundredThousand.prefix(100)))
    }

    @Test func recordsHaveDistinctIdsAndTimesAndTheDocumentedOpenCount() {
        let records = Self.hundredThousand
        #expect(Set(records.map { $0.id.lowercased() }).count == records.count)
        #expect(Set(records.map(\.updatedAt)).count == records.count)
        #expect(records.filter { !$0.complete }.count == 50_125)
        #expect(records.allSatisfy { $0.text.utf8.count == 30 && $0.version.utf8.count == 8 && (0...9).contains($0.priority) })
    }

    @Test func lookupSequenceStartsWithTheDocumentedIndexes() {
        #expect(BenchmarkRecords.lookupIndexes(count: 5, storeSize: 100_000) == [10592, 83833, 71686, 17808, 64807])
        #expect(BenchmarkRecords.lookupIndexes(count: 5, storeSize: 0).isEmpty)
    }

    @Test func objectHasExactlyTheSixFieldsAndReadsBack() throws {
        let record = Self.hundredThousand[1]
        let object = record.object
        #expect(object.count == 6)
        #expect(object["complete"] == .bool(true))
        #expect(object["priority"] == .int(6))
        #expect(BenchmarkRecord(object) == record)
        #expect(try JSONValue(parsing: record.canonicalJSON) == .object(object))
    }

    @Test func itemsThatAreNotBenchmarkRecordsAreRejected() {
        var extra = Self.hundredThousand[0].object
        extra["deleted"] = false
        var wrongKind = Self.hundredThousand[0].object
        wrongKind["priority"] = "0"
        var missing = Self.hundredThousand[0].object
        missing["version"] = nil
        #expect(BenchmarkRecord(extra) == nil)
        #expect(BenchmarkRecord(wrongKind) == nil)
        #expect(BenchmarkRecord(missing) == nil)
    }
}
