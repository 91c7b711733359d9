import Foundation
import OfflineSync

extension BenchRunner {
    /// W1, W3, W4, W5 and W6 on a plaintext journal store, then the same on a store encrypted with a
    /// ``ChaChaPolyCipher`` (its metrics suffixed `_encrypted`), in one run so that both meet the same machine; then C1.
    func runEncryptionSuite() async throws {
        let cipher = try Self.benchCipher()
        for encrypted in [false, true] {
            var runner = self
            runner.factory = JournalBenchStoreFactory(writeThread: options.writeThread, cipher: encrypted ? cipher : nil)
            log("offline-sync bench: \(runner.factory.name), W1, W3, W4, W5, W6, \(sizes.bulkRecords) records, data under \(root.path)")
            report.nameSuffix = encrypted ? "_encrypted" : ""
            defer { report.nameSuffix = "" }
            try await runner.runSingleWrites()
            let (directory, records) = try await runner.runBulkImport()
            try await runner.runColdOpen(directory, records)
            let store = try await runner.factory.open(directory: directory, durability: .always)
            try await runner.runQuery(store, records)
            try await runner.runPointReads(store, records)
            try await store.close()
        }
        try runCipherThroughput(cipher)
    }

    /// The cipher of the encrypted store: a fixed key (the bench measures speed, not secrecy). Made in a synchronous
    /// function and held as `any StoreCipher`: a `ChaChaPolyCipher` (its key a `SIMD8`) held as a local of this async
    /// suite corrupted the heap in a debug build (Swift 6.3, Linux), which the bench's test caught every time.
    static func benchCipher() throws -> any StoreCipher {
        try ChaChaPolyCipher(key: [UInt8](repeating: 7, count: 32), keyIdentifier: "bench")
    }

    /// C1, the cipher alone: 64 KiB messages (a snapshot block) sealed, then opened, `32 / divisor` MiB in all; the
    /// median of 3 rounds, in MB/s of plaintext.
    func runCipherThroughput(_ cipher: any StoreCipher) throws {
        let message = [UInt8](repeating: 0x6F, count: 64 << 10)
        let messages = max(512 / sizes.divisor, 16)
        var seals: [Double] = [], opens: [Double] = []
        var sealed: [UInt8] = []
        for _ in 0..<3 {
            var start = MonotonicClock.now()
            for _ in 0..<messages { sealed = try cipher.seal(message, associatedData: []) }
            seals.append(MonotonicClock.now() - start)
            start = MonotonicClock.now()
            for _ in 0..<messages { _ = try cipher.open(sealed, associatedData: []) }
            opens.append(MonotonicClock.now() - start)
        }
        let megabytes = Double(messages * message.count) / 1e6
        try report.record("C1", "c1_seal_mb_per_s", megabytes / BenchStatistics.median(seals), "MB/s")
        try report.record("C1", "c1_open_mb_per_s", megabytes / BenchStatistics.median(opens), "MB/s")
    }
}
