import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Cutting, flipping and zero-filling journal files: open keeps exactly the committed prefix or refuses.
struct JournalRecoveryTests {
    /// A closed store with batches 1...count in journal 1; returns the journal's path.
    private func makeStore(_ directory: TemporaryDirectory, batches count: Int) async throws -> String {
        let store = try await JournalDataSource.open(directory.storePath)
        for n in 1...count { try await store.apply(Sample.batch(n)) }
        try await store.close()
        return directory.storePath + "/journal.1.jsonl"
    }

    /// Opens the store, checks that it holds exactly batches 1...expected, closes it.
    private func expectPrefix(_ directory: TemporaryDirectory, _ expected: Int, total: Int) async throws {
        let store = try await JournalDataSource.open(directory.storePath)
        for n in 1...total {
            #expect(try await Sample.holds(store, batch: n) == (n <= expected), "batch \(n), expected prefix \(expected)")
        }
        #expect(await store.statistics().lastSequence == Int64(expected))
        try await store.close()
    }

    @Test func cutAtEveryOffsetOfTheLastRecordsOpensTheCommittedPrefix() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = try await makeStore(directory, batches: 4)
        let original = try fileBytes(path)
        let ends = lineEnds(original)  // header, then records 1...4
        for cut in ends[2]...original.count {
            try writeBytes(Array(original[0..<cut]), to: path)
            let complete = ends.filter { $0 <= cut }.count - 1
            try await expectPrefix(directory, complete, total: 4)
            #expect(try fileBytes(path).count == ends[complete], "the torn tail is cut off at \(cut)")
        }
    }

    @Test func cutInsideTheHeaderRewritesIt() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = try await makeStore(directory, batches: 1)
        let original = try fileBytes(path)
        for cut in [0, 1, 16, lineEnds(original)[0] - 1] {
            try writeBytes(Array(original[0..<cut]), to: path)
            let store = try await JournalDataSource.open(directory.storePath)
            try await store.apply(Sample.batch(7))
            try await store.close()
            let reopened = try await JournalDataSource.open(directory.storePath)
            #expect(try await !Sample.holds(reopened, batch: 1))
            #expect(try await Sample.holds(reopened, batch: 7))
            #expect(await reopened.statistics().lastSequence == 1)
            try await reopened.close()
            try writeBytes(original, to: path)
        }
    }

    @Test func cutAtRandomOffsetsOpensTheCommittedPrefix() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = try await makeStore(directory, batches: 20)
        let original = try fileBytes(path)
        let ends = lineEnds(original)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<30 {
            let cut = Int.random(in: ends[0]...original.count, using: &generator)
            try writeBytes(Array(original[0..<cut]), to: path)
            try await expectPrefix(directory, ends.filter { $0 <= cut }.count - 1, total: 20)
        }
    }

    @Test func trailingZeroBytesAfterTheRecordsAreFreeSpace() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = try await makeStore(directory, batches: 3)
        let original = try fileBytes(path)
        try writeBytes(original + [UInt8](repeating: 0, count: 4096), to: path)
        #expect(try await JournalDataSource.verify(directory: directory.store).problems.isEmpty)
        try await expectPrefix(directory, 3, total: 3)
        #expect(try fileBytes(path) == original, "close cuts the zeros off")
    }

    @Test func aRecordTornInsideTheZerosIsATornTail() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = try await makeStore(directory, batches: 3)
        let original = try fileBytes(path)
        let ends = lineEnds(original)
        var damaged = Array(original[..<ends[2]]) + [UInt8](repeating: 0, count: 4096)
        damaged.replaceSubrange(ends[2]..<ends[3] - 10, with: original[ends[2]..<ends[3] - 10])
        try writeBytes(damaged, to: path)
        #expect(try await JournalDataSource.verify(directory: directory.store).problems.first?.message.hasPrefix("torn tail") == true)
        try await expectPrefix(directory, 2, total: 3)
        #expect(try fileBytes(path) == Array(original[..<ends[2]]))
    }

    @Test func aJournalOfZerosAloneIsATornHeader() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = try await makeStore(directory, batches: 1)
        try writeBytes([UInt8](repeating: 0, count: 4096), to: path)
        #expect(try await JournalDataSource.verify(directory: directory.store).problems.first?.message.hasPrefix("torn tail") == true)
        let store = try await JournalDataSource.open(directory.storePath)
        #expect(await store.statistics().journalRecords == 0)
        try await store.close()
        #expect(try lineEnds(fileBytes(path)).count == 1, "the header is rewritten over the zeros")
    }

    @Test func bitFlipInAnEarlierRecordIsCorruption() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = try await makeStore(directory, batches: 5)
        let original = try fileBytes(path)
        let ends = lineEnds(original)
        // Flip bits at several places inside record 2 (between ends[1] and ends[2] - 1).
        for offset in [ends[1], ends[1] + 3, ends[1] + 20, (ends[1] + ends[2]) / 2, ends[2] - 2, ends[2] - 1] {
            var damaged = original
            damaged[offset] ^= 0x04
            try writeBytes(damaged, to: path)
            do {
                _ = try await JournalDataSource.open(directory.storePath)
                Issue.record("opened a store with a flipped bit at \(offset)")
            } catch let error as JournalError where error.code == .corrupted {
                #expect(error.path == path)
                #expect(error.offset == Int64(ends[1]))
                #expect(error.sequence == 2)
            }
            #expect(try fileBytes(path) == damaged, "open must not change a corrupted journal")
            let verification = try await JournalDataSource.verify(directory: directory.store)
            #expect(verification.problems.first?.message.hasPrefix("corrupted") == true, "a failed open releases the lock")
        }
    }

    @Test func aRecordWrittenAroundItsPayloadEqualsOneThatCopiesIt() throws {
        let batch = Sample.batch(3)
        var payload: [UInt8] = []
        try JournalPayload.write(batch, into: &payload)
        var copied: [UInt8] = Array("x".utf8), inPlace: [UInt8] = Array("x".utf8)
        JournalRecord.appendApply(sequence: 12, generation: 3, payload: payload, into: &copied)
        let payloadBytes = try JournalRecord.appendApply(sequence: 12, generation: 3, into: &inPlace) { (buffer) throws(DataSourceError) in
            try JournalPayload.write(batch, into: &buffer)
        }
        #expect(inPlace == copied)
        #expect(payloadBytes == payload.count)
    }

    @Test func recordOfAnotherGenerationIsCorruption() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = try await makeStore(directory, batches: 2)
        var bytes = try fileBytes(path)
        var payload: [UInt8] = []
        try JournalPayload.write(Sample.batch(3), into: &payload)
        JournalRecord.appendApply(sequence: 3, generation: 7, payload: payload, into: &bytes)
        JournalRecord.appendApply(sequence: 4, generation: 1, payload: payload, into: &bytes)
        try writeBytes(bytes, to: path)
        await #expect {
            _ = try await JournalDataSource.open(directory.storePath)
        } throws: { error in
            guard let error = error as? JournalError, error.code == .corrupted else { return false }
            return error.sequence == 3 && error.reason?.contains("stale") == true
        }
    }

    @Test func bitFlipInTheLastRecordIsATornTail() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = try await makeStore(directory, batches: 3)
        var damaged = try fileBytes(path)
        let ends = lineEnds(damaged)
        damaged[ends[2] + 30] ^= 0x01
        try writeBytes(damaged, to: path)
        try await expectPrefix(directory, 2, total: 3)
    }

    @Test func sequenceGapIsCorruptionEvenWithValidChecksums() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = try await makeStore(directory, batches: 3)
        let original = try fileBytes(path)
        let ends = lineEnds(original)
        // Drop record 2: records 1 and 3 are valid but 3 does not follow 1.
        try writeBytes(Array(original[0..<ends[1]] + original[ends[2]...]), to: path)
        await #expect(throws: JournalError.corrupted(file: path, offset: Int64(ends[1]), sequence: 2,
                                                     reason: "sequence 3 follows 1; sequence numbers must increase by exactly 1")) {
            _ = try await JournalDataSource.open(directory.storePath)
        }
        // A duplicated last record (a reused tail) is corruption too.
        try writeBytes(original + Array(original[ends[2]..<ends[3]]), to: path)
        await #expect(throws: JournalError.self) { _ = try await JournalDataSource.open(directory.storePath) }
    }

    @Test func verifyReportsAndRepairKeepsTheValidPrefix() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = try await makeStore(directory, batches: 6)
        var damaged = try fileBytes(path)
        let ends = lineEnds(damaged)
        damaged[ends[3] + 25] ^= 0x10  // record 4
        try writeBytes(damaged, to: path)

        let verification = try await JournalDataSource.verify(directory: directory.store)
        #expect(!verification.isSound)
        #expect(verification.records == 3)
        let problem = try #require(verification.problems.first)
        #expect(problem.file == path && problem.offset == Int64(ends[3]) && problem.sequence == 4)
        #expect(problem.message.hasPrefix("corrupted"))
        #expect(try fileBytes(path) == damaged, "verify changes nothing")

        let report = try await JournalDataSource.repair(directory: directory.store)
        #expect(report.recordsKept == 3)
        #expect(report.bytesMovedAside == Int64(damaged.count - ends[3]))
        let aside = try #require(report.movedAside.first)
        #expect(try fileBytes(aside) == Array(damaged[ends[3]...]))
        #expect(try await JournalDataSource.verify(directory: directory.store).isSound)
        try await expectPrefix(directory, 3, total: 6)
        let store = try await JournalDataSource.open(directory.storePath)
        try await store.apply(Sample.batch(9))
        #expect(await store.statistics().lastSequence == 4)
        try await store.close()
    }

    @Test func repairOfASoundStoreChangesNothing() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = try await makeStore(directory, batches: 2)
        let before = try fileBytes(path)
        let report = try await JournalDataSource.repair(directory: directory.store)
        #expect(report.movedAside.isEmpty && report.bytesMovedAside == 0 && report.recordsKept == 2)
        #expect(try fileBytes(path) == before)
    }

    @Test func repairMovesATornTailAside() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = try await makeStore(directory, batches: 2)
        let original = try fileBytes(path)
        try writeBytes(Array(original.dropLast(7)), to: path)
        let report = try await JournalDataSource.repair(directory: directory.store)
        #expect(report.recordsKept == 1)
        let aside = try #require(report.movedAside.first)
        #expect(aside.hasSuffix(".broken"))
        #expect(try fileBytes(path) + fileBytes(aside) == Array(original.dropLast(7)))
        #expect(try await JournalDataSource.verify(directory: directory.store).isSound)
    }

    @Test func verifyAndRepairRefuseADirectoryWithoutAStore() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.store, withIntermediateDirectories: true)
        await #expect(throws: JournalError.notAStore(directory: directory.storePath)) {
            _ = try await JournalDataSource.verify(directory: directory.store)
        }
        await #expect(throws: JournalError.notAStore(directory: directory.storePath)) {
            _ = try await JournalDataSource.repair(directory: directory.store)
        }
    }

    @Test func verifyReportsATornTailWithoutCuttingIt() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = try await makeStore(directory, batches: 2)
        let original = try fileBytes(path)
        try writeBytes(Array(original.dropLast(5)), to: path)
        let verification = try await JournalDataSource.verify(directory: directory.store)
        #expect(verification.problems.count == 1)
        #expect(verification.problems.first?.message.hasPrefix("torn tail") == true)
        #expect(verification.lastSequence == 1)
        #expect(try fileBytes(path).count == original.count - 5)
    }

    @Test func unknownFormatVersionIsRefused() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = try await makeStore(directory, batches: 1)
        var buffer: [UInt8] = []
        LineFraming.begin(&buffer)
        buffer.append(contentsOf: #""s":0,"g":1,"k":"hdr","p":{"format":2,"baseSeq":0}}"#.utf8)
        LineFraming.seal(&buffer, lineStart: 0)
        try writeBytes(buffer, to: path)
        await #expect(throws: JournalError.unsupportedFormat(file: path, version: 2)) { _ = try await JournalDataSource.open(directory.storePath) }
    }

    @Test func damagedManifestIsATypedError() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        _ = try await makeStore(directory, batches: 1)
        var manifest = try fileBytes(directory.storePath + "/CURRENT")
        manifest[manifest.count - 4] ^= 0x01
        try writeBytes(manifest, to: directory.storePath + "/CURRENT")
        await #expect(throws: JournalError.self) { _ = try await JournalDataSource.open(directory.storePath) }
        try FileManager.default.removeItem(atPath: directory.storePath + "/CURRENT")
        await #expect(throws: JournalError.self) { _ = try await JournalDataSource.open(directory.storePath) }
    }

    @Test func damagedSnapshotIsATypedErrorAndRepairMovesItAside() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath)
        try await store.apply(Sample.batch(1))
        try await store.compact()
        try await store.close()
        let path = directory.storePath + "/snapshot.2.json"
        var snapshot = try fileBytes(path)
        snapshot[snapshot.count / 2] ^= 0x02
        try writeBytes(snapshot, to: path)
        await #expect(throws: JournalError.self) { _ = try await JournalDataSource.open(directory.storePath) }
        let report = try await JournalDataSource.repair(directory: directory.store)
        #expect(report.movedAside.contains(path + ".broken"))
        try await expectPrefix(directory, 0, total: 1)
    }
}
