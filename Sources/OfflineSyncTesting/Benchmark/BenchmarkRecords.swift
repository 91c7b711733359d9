import OfflineSyncCore
package import OfflineSyncStore

/// The store benchmark's deterministic data: records 0, 1, 2, … of a SplitMix64 stream seeded with 42, and
/// W6's lookup sequence (seed 6), exactly as the store benchmark specifies them.
///
/// ```swift
/// let records = BenchmarkRecords.generate(count: 2_000)
/// BenchmarkRecords.checksum(records)   // 0xd2ef834a154db669
/// ```
package enum BenchmarkRecords {
    /// The seed of the record stream.
    package static let seed: UInt64 = 42
    /// The seed of W6's lookup sequence.
    package static let lookupSeed: UInt64 = 6
    /// The table every record belongs to.
    package static let table = "TodoItem"
    /// The index every store of W3 to W8 is opened with: `(complete, updatedAt)`, which serves W5's query.
    package static let indexes = [IndexDefinition(table: table, fields: ["complete", "updatedAt"])]

    /// The eight 17-character phrases that end each record's `text`.
    package static let phrases = [
        "buy milk and eggs", "renew my passport", "fix the login bug", "pay electric bill",
        "write the summary", "clean the kitchen", "call the landlord", "water the orchids",
    ]
    /// 2026-01-01T00:00:00.000Z in milliseconds since 1970.
    static let epochMilliseconds: UInt64 = 1_767_225_600_000
    /// Milliseconds in 365 days: `updatedAt` falls anywhere in 2026.
    static let spanMilliseconds: UInt64 = 31_536_000_000

    /// Records `0..<count` of the stream seeded with `seed`; record i takes seven draws, in the benchmark's order.
    package static func generate(count: Int, seed: UInt64 = BenchmarkRecords.seed) -> [BenchmarkRecord] {
        var generator = SplitMix64(seed: seed)
        var records: [BenchmarkRecord] = []
        records.reserveCapacity(max(count, 0))
        for index in 0..<max(count, 0) {
            let high = generator.next()
            let low = generator.next()
            let phrase = phrases[Int(generator.next() % 8)]
            let complete = generator.next() & 1 == 1
            let priority = Int(generator.next() % 10)
            let milliseconds = epochMilliseconds + generator.next() % spanMilliseconds
            let version = hex(generator.next() >> 32, digits: 8, uppercase: false)
            records.append(BenchmarkRecord(
                id: uuidString(high: high, low: low),
                text: String(("Task " + padded(index, digits: 6) + ": " + phrase).prefix(30)),
                complete: complete,
                priority: priority,
                updatedAt: Timestamp.string(fromMilliseconds: Int64(milliseconds)),
                version: version))
        }
        return records
    }

    /// W6's lookup sequence: `count` indexes into a store of `storeSize` records, uniform with repetition.
    package static func lookupIndexes(count: Int, storeSize: Int) -> [Int] {
        guard storeSize > 0 else { return [] }
        var generator = SplitMix64(seed: lookupSeed)
        return (0..<max(count, 0)).map { _ in Int(generator.next() % UInt64(storeSize)) }
    }

    /// FNV-1a 64 over the UTF-8 of every record's canonical JSON followed by `"\n"`.
    package static func checksum(_ records: some Sequence<BenchmarkRecord>) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for record in records {
            for byte in record.canonicalJSON.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            hash = (hash ^ 0x0A) &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// The RFC 4122 version-4 layout of `high` (bytes 0-7) and `low` (bytes 8-15), big-endian, in upper-case
    /// canonical form: what Foundation's `UUID(uuid:).uuidString` prints.
    static func uuidString(high: UInt64, low: UInt64) -> String {
        let high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return hex(high >> 32, digits: 8) + "-" + hex((high >> 16) & 0xFFFF, digits: 4) + "-"
            + hex(high & 0xFFFF, digits: 4) + "-" + hex(low >> 48, digits: 4) + "-"
            + hex(low & 0xFFFF_FFFF_FFFF, digits: 12)
    }

    static func hex(_ value: UInt64, digits: Int, uppercase: Bool = true) -> String {
        let text = String(value, radix: 16, uppercase: uppercase)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    static func padded(_ value: Int, digits: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

}
