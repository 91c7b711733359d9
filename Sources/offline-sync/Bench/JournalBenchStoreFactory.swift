import Foundation
import OfflineSync

/// ``JournalDataSource`` behind the bench's factory: the store the workload definition measures.
struct JournalBenchStoreFactory: BenchStoreFactory {
    var name: String { cipher == nil ? "JournalDataSource" : "JournalDataSource (encrypted)" }
    var persistsAcrossProcesses: Bool { true }
    /// Where the stores write and sync.
    var writeThread = JournalWriteThread.shared
    /// The cipher of encrypted stores (``BenchOptions/Suite/encryption``); nil for plaintext ones.
    var cipher: (any StoreCipher)?

    func open(directory: URL, durability: BenchDurability, indexes: [IndexDefinition]) async throws -> BenchStore {
        try await open(directory: directory, options: options(durability: durability, indexes: indexes))
    }

    /// The store opened before its snapshot is loaded (``JournalOptions/loadsSnapshotInBackground``).
    func openForFirstAnswers(directory: URL) async throws -> BenchStore {
        var options = options(durability: .always, indexes: benchIndexes)
        options.loadsSnapshotInBackground = true
        return try await open(directory: directory, options: options)
    }

    private func options(durability: BenchDurability, indexes: [IndexDefinition]) -> JournalOptions {
        var options = JournalOptions(durability: durability == .always ? .always : .grouped)
        options.indexes = indexes
        options.writeThread = writeThread
        options.cipher = cipher
        return options
    }

    private func open(directory: URL, options: JournalOptions) async throws -> BenchStore {
        let store = try await JournalDataSource(directory: directory, options: options)
        return BenchStore(source: store, close: { try await store.close() }, explain: { try await store.explain($0) })
    }
}
