import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// ENOSPC, EIO and EDQUOT at every changing file operation and every file open of a workload (open, applies, a
/// compaction and its manifest switches, close), one at a time: the failing call throws a typed ``JournalError``
/// naming the errno, the store goes on working once the error has passed (or refuses every later write, never
/// some), and after reopening it holds exactly the acknowledged batches.
struct DiskErrorSweepTests {
    static let errnos: [Int32] = [28, 5, 122]  // ENOSPC, EIO, EDQUOT

    struct Outcome {
        var acknowledged: Set<Int> = []
        var failedApplies: [Int] = []
        var errors: [JournalError] = []
    }

    /// Batches 1…8, a compaction after batch 4, close; the store is opened again if the error hit the first open.
    static func workload(_ directory: TemporaryDirectory, _ durability: Durability, _ fileSystem: FaultInjectingFileSystem,
                         cipher: (any StoreCipher)?) async throws -> Outcome {
        var outcome = Outcome()
        var options = JournalOptions(durability: durability)
        options.automaticCompaction = false
        options.cipher = cipher
        let store: JournalDataSource
        do {
            store = try await JournalDataSource(path: directory.storePath, options: options, fileSystem: fileSystem)
        } catch {
            outcome.errors.append(error)
            store = try await JournalDataSource(path: directory.storePath, options: options, fileSystem: fileSystem)
        }
        for n in 1...8 {
            if n == 5 {
                do { try await store.compact() } catch let error as JournalError { outcome.errors.append(error) }
            }
            do {
                try await store.apply(Sample.batch(n))
                outcome.acknowledged.insert(n)
            } catch let error as JournalError {
                outcome.errors.append(error)
                outcome.failedApplies.append(n)
            }
        }
        do { try await store.close() } catch let error as JournalError { outcome.errors.append(error) }
        return outcome
    }

    /// Plaintext in each durability, and encrypted under `.always` and `.grouped`.
    @Test(arguments: [(Durability.always, false), (.grouped, false), (.buffered, false), (.always, true), (.grouped, true)])
    func aDiskErrorAtAnyStepFailsThatCallAloneAndLosesNothingAcknowledged(durability: Durability, encrypted: Bool) async throws {
        let cipher: (any StoreCipher)? = encrypted ? EncryptedStore.cipher : nil
        var point = 0
        var failedCalls = 0
        while true {
            var reachedPoint = false
            for code in Self.errnos {
                let directory = TemporaryDirectory()
                defer { directory.remove() }
                let fileSystem = FaultInjectingFileSystem()
                fileSystem.failStep(at: point, errno: code)
                let outcome = try await Self.workload(directory, durability, fileSystem, cipher: cipher)
                guard fileSystem.failedStep else { continue }
                reachedPoint = true
                let label = "\(encrypted ? "encrypted " : "")\(durability), operation \(point), errno \(code)"
                for error in outcome.errors {
                    failedCalls += 1
                    #expect(error.errno == code && [.io, .failed].contains(error.code), "\(label): not the injected error: \(error)")
                    #expect(error.description.contains("errno \(code) ("), "\(label): the error does not say what happened: \(error)")
                }
                // One error: at most the apply it hit fails, unless the store then refuses every later write.
                if let first = outcome.failedApplies.first, outcome.failedApplies.count > 1 {
                    #expect(outcome.failedApplies == Array(first...8), "\(label): failed \(outcome.failedApplies), accepted some after refusing")
                }

                #expect(try await Sample.heldBatches(at: directory.storePath, among: 1...8, cipher: cipher) == outcome.acknowledged.sorted(),
                        "\(label): holds other than the acknowledged batches")
            }
            if !reachedPoint { break }
            point += 1
        }
        #expect(point > 20, "the workload has \(point) changing operations")
        #expect(failedCalls > 0)
    }
}
